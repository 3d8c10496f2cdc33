/// The reader answered a signal command with something other than its manual's success answer.
public struct ReaderSignalRefused: CategorizedError, Hashable, CustomStringConvertible {
    /// The reader family (``ReaderSignalDialect/family``).
    public let family: String
    /// The command the reader refused.
    public let command: ReaderSignalCommand
    /// What the reader answered.
    public let answer: [UInt8]

    /// A refusal of `command` with `answer` by a reader of `family`.
    ///
    /// - Parameters:
    ///   - family: the reader family.
    ///   - command: the command the reader refused.
    ///   - answer: what the reader answered.
    public init(family: String, command: ReaderSignalCommand, answer: [UInt8]) {
        self.family = family
        self.command = command
        self.answer = answer
    }

    /// The reader turned the command down: a reader failure, not the caller's.
    public var category: ErrorCategory { .reader }

    public var description: String {
        "\(family) refused \(command): answered \(answer.isEmpty ? "nothing" : answer.spacedHexString)"
    }
}
