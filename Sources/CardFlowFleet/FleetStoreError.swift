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
        case .server(let operation, "53100", let message):
            "fleet database's disk is full (\(operation), SQLSTATE 53100): \(message); "
                + "nothing of it was stored, and it succeeds once the server has space again"
        case .server(let operation, let sqlState, let message):
            "fleet database refused \(operation): \(message) (SQLSTATE \(sqlState))"
        case .schemaMissing(let reason): "fleet database has no usable schema (run `cardctl fleet init`): \(reason)"
        case .invalidRecord(let line, let reason): "record \(line): \(reason); nothing was imported"
        case .unknownBatch(let batch): "no fleet batch named '\(batch)'"
        case .corruptRow(let operation, let reason): "fleet database row unreadable (\(operation)): \(reason)"
        }
    }

    /// Whether retrying later may succeed (the server is down or slow, or short of a resource),
    /// as opposed to a refusal.
    ///
    /// SQLSTATE class 53 (insufficient resources: disk full 53100, out of memory 53200, too many
    /// connections 53300) is transient: the statement was rolled back and the same one succeeds
    /// once an operator frees the resource, so an outbox keeps it and retries rather than logging
    /// a refusal for every waiting completion.
    public var isTransient: Bool {
        switch self {
        case .unreachable, .timedOut: true
        case .server(_, let sqlState, _): sqlState.hasPrefix("53")
        default: false
        }
    }

    /// Whether the server refused for want of disk space (SQLSTATE 53100).
    public var isDiskFull: Bool {
        if case .server(_, "53100", _) = self { return true }
        return false
    }
}
