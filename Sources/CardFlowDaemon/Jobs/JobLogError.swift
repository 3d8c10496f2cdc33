/// A job log that cannot be used as it is: not a database, a database of something else, or
/// rows whose contents cardd did not write (a tampered or foreign file). Reading such a row
/// fails with one of these; the daemon reports it and keeps running.
public enum JobLogError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The file could not be opened as cardd's job log.
    case unusable(path: String, reason: String)
    /// The tables lack what cardd needs (a database of another program, or an edited schema).
    case schemaMismatch(path: String, reason: String)
    /// A column holds something cardd never writes there: NULL, the wrong type, an unknown name.
    case unexpectedContent(table: String, row: Int64?, column: String, reason: String)
    /// A column holds more bytes than cardd ever writes there.
    case fieldTooLarge(table: String, row: Int64?, column: String, limit: Int)

    public var description: String {
        switch self {
        case .unusable(let path, let reason):
            "cannot use \(path) as the job log: \(reason) (move it away, or give another path with --job-log)"
        case .schemaMismatch(let path, let reason):
            "\(path) is not a cardd job log: \(reason) (move it away, or give another path with --job-log)"
        case .unexpectedContent(let table, let row, let column, let reason):
            "job log \(table) row \(row.map(String.init) ?? "?"), column \(column): \(reason); the file was changed by something other than cardd"
        case .fieldTooLarge(let table, let row, let column, let limit):
            "job log \(table) row \(row.map(String.init) ?? "?"), column \(column): more than \(limit) bytes; the file was changed by something other than cardd"
        }
    }
}
