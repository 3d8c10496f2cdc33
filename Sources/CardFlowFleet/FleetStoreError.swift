/// Why a fleet store operation failed. Every case says what to do next in its description.
public enum FleetStoreError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The `postgres` setting cannot be parsed.
    case invalidAddress(String)
    /// The server could not be reached or dropped the connection (stopped, network, authentication).
    case unreachable(operation: String, reason: String)
    /// The server did not answer within the store's operation timeout.
    case timedOut(operation: String, seconds: Double)
    /// The server refused a statement (SQLSTATE and message).
    case server(operation: String, sqlState: String, message: String)
    /// The database has no fleet schema (`cardctl fleet init` creates it) or an older one.
    case schemaMissing(String)
    /// An imported record or argument is unusable; nothing of the import was stored.
    case invalidRecord(line: Int, reason: String)
    /// The batch does not exist.
    case unknownBatch(String)
    /// A row the store read back is not what it wrote (edited by hand).
    case corruptRow(operation: String, reason: String)

    public var description: String {
        switch self {
        case .invalidAddress(let reason): "fleet database address: \(reason)"
        case .unreachable(let operation, let reason): "fleet database unreachable (\(operation)): \(reason)"
        case .timedOut(let operation, let seconds):
            "fleet database did not answer \(operation) within \(seconds) s"
        case .server(let operation, let sqlState, let message):
            "fleet database refused \(operation): \(message) (SQLSTATE \(sqlState))"
        case .schemaMissing(let reason): "fleet database has no usable schema (run `cardctl fleet init`): \(reason)"
        case .invalidRecord(let line, let reason): "record \(line): \(reason); nothing was imported"
        case .unknownBatch(let batch): "no fleet batch named '\(batch)'"
        case .corruptRow(let operation, let reason): "fleet database row unreadable (\(operation)): \(reason)"
        }
    }

    /// Whether retrying later may succeed (the server is down or slow), as opposed to a refusal.
    public var isTransient: Bool {
        switch self {
        case .unreachable, .timedOut: true
        default: false
        }
    }
}
