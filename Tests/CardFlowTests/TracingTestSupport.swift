import CardFlow
import Logging
import Metrics
import Synchronization

/// One log record a ``CapturingLogHandler`` kept.
struct CapturedLogRecord: Sendable, Equatable {
    let level: Logger.Level
    let message: String
    let metadata: [String: String]
}

/// Where a ``CapturingLogHandler`` puts records, and the level it reports (changeable mid-test).
final class CapturedLog: Sendable {
    private let records = Mutex<[CapturedLogRecord]>([])
    private let level: Mutex<Logger.Level>
    /// With `keepingEvents`, the events as the handler got them (their metadata dictionaries
    /// kept, not copied): for the channel that rewrites its metadata between APDUs.
    private let events: Mutex<[LogEvent]>?

    init(level: Logger.Level = .trace, keepingEvents: Bool = false) {
        self.level = Mutex(level)
        events = keepingEvents ? Mutex([]) : nil
    }

    func keep(_ event: LogEvent) {
        events?.withLock { $0.append(event) }
    }

    /// The kept events' own metadata (without the handler's), as text.
    var keptEventMetadata: [[String: String]] {
        events?.withLock { $0.map { ($0.metadata ?? [:]).mapValues(\.description) } } ?? []
    }

    var logLevel: Logger.Level {
        get { level.withLock { $0 } }
        set { level.withLock { $0 = newValue } }
    }

    func append(_ record: CapturedLogRecord) {
        records.withLock { $0.append(record) }
    }

    var all: [CapturedLogRecord] { records.withLock { $0 } }
    var messages: [String] { all.map(\.message) }

    /// A logger writing here.
    func logger(metadata: Logger.Metadata = [:]) -> Logger {
        var logger = Logger(label: "test.apdu") { _ in CapturingLogHandler(log: self) }
        for (key, value) in metadata { logger[metadataKey: key] = value }
        return logger
    }
}

/// A swift-log handler that keeps records in memory; its level is the ``CapturedLog``'s.
struct CapturingLogHandler: LogHandler {
    let log: CapturedLog
    var metadata: Logger.Metadata = [:]

    var logLevel: Logger.Level {
        get { log.logLevel }
        set { log.logLevel = newValue }
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        log.keep(event)
        let merged = metadata.merging(event.metadata ?? [:]) { _, new in new }
        log.append(
            CapturedLogRecord(
                level: event.level, message: event.message.description,
                metadata: merged.mapValues { $0.description }))
    }
}

/// A swift-metrics factory that keeps every value in memory, keyed by label and dimensions.
final class CapturingMetricsFactory: MetricsFactory {
    private let counters = Mutex<[String: CapturedCounter]>([:])
    private let timers = Mutex<[String: CapturedTimer]>([:])

    static func key(_ label: String, _ dimensions: [(String, String)]) -> String {
        ([label] + dimensions.sorted { $0.0 < $1.0 }.map { "\($0.0)=\($0.1)" }).joined(separator: ",")
    }

    /// A counter's total, 0 if it was never created.
    func counter(_ label: String, _ dimensions: [(String, String)]) -> Int64 {
        counters.withLock { $0[Self.key(label, dimensions)]?.total ?? 0 }
    }

    /// Every counter's key and total.
    var counterTotals: [String: Int64] {
        counters.withLock { $0.mapValues(\.total) }
    }

    /// A timer's recorded values.
    func timerValues(_ label: String, _ dimensions: [(String, String)]) -> [Int64] {
        timers.withLock { $0[Self.key(label, dimensions)]?.values ?? [] }
    }

    func makeCounter(label: String, dimensions: [(String, String)]) -> any CounterHandler {
        counters.withLock { counters in
            let key = Self.key(label, dimensions)
            if let existing = counters[key] { return existing }
            let counter = CapturedCounter()
            counters[key] = counter
            return counter
        }
    }

    func makeTimer(label: String, dimensions: [(String, String)]) -> any TimerHandler {
        timers.withLock { timers in
            let key = Self.key(label, dimensions)
            if let existing = timers[key] { return existing }
            let timer = CapturedTimer()
            timers[key] = timer
            return timer
        }
    }

    func makeFloatingPointCounter(label: String, dimensions: [(String, String)]) -> any FloatingPointCounterHandler {
        NOOPMetricsHandler.instance
    }

    func makeMeter(label: String, dimensions: [(String, String)]) -> any MeterHandler {
        NOOPMetricsHandler.instance
    }

    func makeRecorder(label: String, dimensions: [(String, String)], aggregate: Bool) -> any RecorderHandler {
        NOOPMetricsHandler.instance
    }

    func destroyCounter(_ handler: any CounterHandler) {}
    func destroyMeter(_ handler: any MeterHandler) {}
    func destroyFloatingPointCounter(_ handler: any FloatingPointCounterHandler) {}
    func destroyRecorder(_ handler: any RecorderHandler) {}
    func destroyTimer(_ handler: any TimerHandler) {}
}

final class CapturedCounter: CounterHandler {
    private let value = Mutex<Int64>(0)
    func increment(by amount: Int64) { value.withLock { $0 += amount } }
    func reset() { value.withLock { $0 = 0 } }
    var total: Int64 { value.withLock { $0 } }
}

final class CapturedTimer: TimerHandler {
    private let recorded = Mutex<[Int64]>([])
    func recordNanoseconds(_ duration: Int64) { recorded.withLock { $0.append(duration) } }
    var values: [Int64] { recorded.withLock { $0 } }
}

/// A card channel that answers or fails from a script, recording what it was sent.
actor ExchangeScriptChannel: CardChannel {
    enum Step: Sendable {
        case answer(ResponseAPDU)
        case fail(any Error)
    }

    struct ScriptEnded: Error {}

    private var steps: [Step]
    private(set) var sent: [CommandAPDU] = []

    init(_ steps: [Step]) {
        self.steps = steps
    }

    /// Answers with each response in turn.
    init(answers: [String]) throws {
        self.init(try answers.map { .answer(try ResponseAPDU(hex: $0)) })
    }

    func transmit(_ command: CommandAPDU) async throws -> ResponseAPDU {
        sent.append(command)
        guard !steps.isEmpty else { throw ScriptEnded() }
        switch steps.removeFirst() {
        case .answer(let response): return response
        case .fail(let error): throw error
        }
    }
}

/// A transport failure for the scripts.
struct SimulatedTransportError: Error, CustomStringConvertible {
    var description: String { "reader unplugged" }
}

/// Counts calls from any task.
final class CallCounter: Sendable {
    private let count = Mutex(0)
    func increment() { count.withLock { $0 += 1 } }
    var value: Int { count.withLock { $0 } }
}
