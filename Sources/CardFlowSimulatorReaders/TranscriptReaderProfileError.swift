import CardFlow

/// Why no descriptor dump could be found for a recorded reader.
public enum TranscriptReaderProfileError: Error, Sendable, Hashable, CustomStringConvertible, CategorizedError {
    /// Neither an explicit dump nor the log's header gives one, and no dump searched has the
    /// log's VID:PID.
    case noDescriptor(log: String)
    /// The dump the log's `# descriptor:` line names is in none of the folders searched.
    case dumpNotFound(String, searched: [String])
    /// The dump cannot be read or parsed, or describes no reader.
    case unreadableDump(String, reason: String)
    /// The reader has no interface with the number the log's header gives.
    case noInterface(log: String, interface: Int)

    public var description: String {
        switch self {
        case .noDescriptor(let log):
            "\(log): no descriptor for the reader (give a dump: profile=PATH or --reader-profile, or a # descriptor: line)"
        case .dumpNotFound(let file, let searched):
            "the descriptor dump \(file) is not in \(searched.joined(separator: " or "))"
        case .unreadableDump(let path, let reason): "cannot read the descriptor dump \(path): \(reason)"
        case .noInterface(let log, let interface): "\(log): the reader has no interface \(interface)"
        }
    }

    /// The files the user named or supplied.
    public var category: ErrorCategory { .usage }
}
