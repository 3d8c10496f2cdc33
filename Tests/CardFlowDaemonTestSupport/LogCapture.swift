import Logging
import Synchronization

/// Collects every log line (message and metadata) of the loggers it makes, at `trace`, so that
/// tests can check that no secret ever reaches a log.
public final class LogCapture: Sendable {
    // LogHandler.log is synchronous, so the lines are kept under a mutex rather than in an actor.
    private let lines = Mutex<[String]>([])

    public init() {}

    /// A logger at `trace` whose lines land here.
    public func logger(label: String = "capture") -> Logger {
        Logger(label: label) { label in CapturingHandler(label: label, capture: self) }
    }

    public var text: String { lines.withLock { $0.joined(separator: "\n") } }
    public var count: Int { lines.withLock { $0.count } }

    fileprivate func append(_ line: String) { lines.withLock { $0.append(line) } }
}

private struct CapturingHandler: LogHandler {
    let label: String
    let capture: LogCapture
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .trace

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(
        level: Logger.Level, message: Logger.Message, metadata explicit: Logger.Metadata?, source: String,
        file: String, function: String, line: UInt
    ) {
        let all = metadata.merging(explicit ?? [:]) { $1 }
        capture.append("\(level) \(label): \(message) \(all.map { "\($0)=\($1)" }.sorted().joined(separator: " "))")
    }
}
