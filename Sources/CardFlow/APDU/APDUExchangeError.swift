/// A command's exchange was stopped because the card kept asking for follow-up commands beyond
/// the limits of a ``ResponseChainingPolicy``.
public struct APDUExchangeError: Error, Hashable, Sendable, CustomStringConvertible {
    /// Which limit was hit.
    public enum Reason: Hashable, Sendable {
        /// The card still answered `61xx` after `limit` GET RESPONSE commands.
        case getResponseRoundsExceeded(limit: Int)
        /// The card still answered `6Cxx` after `limit` re-sends with a corrected Le.
        case leCorrectionsExceeded(limit: Int)
        /// The gathered response data would exceed `limit` bytes.
        case responseDataLimitExceeded(limit: Int)
    }

    public let reason: Reason
    /// The command the caller sent (not the GET RESPONSE or re-sent command).
    public let command: CommandAPDU
    /// The status word of the card's last answer.
    public let statusWord: StatusWord

    /// The INS byte of the caller's command.
    public var instruction: UInt8 { command.ins }

    public init(reason: Reason, command: CommandAPDU, statusWord: StatusWord) {
        self.reason = reason
        self.command = command
        self.statusWord = statusWord
    }

    public var description: String {
        let what: String
        switch reason {
        case .getResponseRoundsExceeded(let limit):
            what = "card still announced more data after \(limit) GET RESPONSE rounds"
        case .leCorrectionsExceeded(let limit):
            what = "card still asked for another Le after \(limit) corrections"
        case .responseDataLimitExceeded(let limit):
            what = "response data exceeds \(limit) bytes"
        }
        return "INS \([instruction].hexString): \(what) (last status \(statusWord))"
    }
}
