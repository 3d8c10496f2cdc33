/// The card answered a command with a status word other than `9000`.
///
/// Layers above the channel throw this when a command they rely on fails, so callers see the
/// failing instruction and the card's reason in one place.
public struct CardStatusError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The card's status word.
    public let statusWord: StatusWord
    /// The command that failed.
    public let command: CommandAPDU

    /// The INS byte of the failed command.
    public var instruction: UInt8 { command.ins }

    public init(statusWord: StatusWord, command: CommandAPDU) {
        self.statusWord = statusWord
        self.command = command
    }

    /// For example `"INS A4 failed: 6A82 (file or application not found)"`.
    public var description: String {
        "INS \([instruction].hexString) failed: \(statusWord)"
    }
}

extension ResponseAPDU {
    /// Throws unless the status word is `9000`.
    ///
    /// - Parameter command: the command this response answers, carried in the error.
    /// - Throws: ``CardStatusError`` for any other status word, warnings included.
    public func throwIfNotSuccess(for command: CommandAPDU) throws(CardStatusError) {
        guard statusWord.isSuccess else { throw CardStatusError(statusWord: statusWord, command: command) }
    }
}
