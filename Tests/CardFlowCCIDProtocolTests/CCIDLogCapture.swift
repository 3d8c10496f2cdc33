import Logging
import Synchronization

/// Log records kept in memory, so tests can check that a warning was given.
final class CCIDLogCapture: Sendable {
    struct Record: Sendable {
        let level: Logger.Level
        let message: String
        let metadata: [String: String]
    }

    private let records = Mutex<[Record]>([])

    var all: [Record] { records.withLock { $0 } }

    func warnings(containing text: String) -> [Record] {
        all.filter { $0.level >= .warning && ($0.message.contains(text) || $0.metadata.keys.contains(text)) }
    }

    func logger() -> Logger {
        Logger(label: "test.ccid") { _ in Handler(capture: self) }
    }

    fileprivate func append(_ record: Record) {
        records.withLock { $0.append(record) }
    }

    private struct Handler: LogHandler {
        let capture: CCIDLogCapture
        var logLevel: Logger.Level = .trace
        var metadata: Logger.Metadata = [:]

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            let merged = metadata.merging(event.metadata ?? [:]) { _, new in new }
            capture.append(
                Record(
                    level: event.level, message: "\(event.message)",
                    metadata: merged.mapValues { "\($0)" }))
        }
    }
}
