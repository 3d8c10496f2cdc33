import CardFlow

/// What is wrong with a `replay:` selector or the log it names.
public enum ReplaySelectorError: Error, Sendable, Hashable, CustomStringConvertible, CategorizedError {
    /// `replay` without `:LOG`.
    case missingLog
    /// An option other than `profile=PATH`.
    case unknownOption(String)
    /// The log cannot be read.
    case unreadable(String)

    public var description: String {
        switch self {
        case .missingLog: "replay needs a log: replay:LOG[,profile=PATH]"
        case .unknownOption(let option): "unknown replay option '\(option)' (only profile=PATH)"
        case .unreadable(let path): "cannot read the log \(path)"
        }
    }

    /// The selector or the file it names: the user's input.
    public var category: ErrorCategory { .usage }
}
