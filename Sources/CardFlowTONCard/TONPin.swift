/// A 4-digit PIN, sent to the card as 4 ASCII digits ("5555" ⇒ `35 35 35 35`).
///
/// ```swift
/// let pin = try TONPin("5555")
/// ```
public struct TONPin: Sendable, Hashable, CustomStringConvertible {
    /// The factory PIN (and the PIN after RESET_WALLET).
    public static let `default` = TONPin(validated: "5555")

    /// The ASCII digits.
    public let bytes: [UInt8]

    /// - Throws: ``TONError/library(code:detail:)`` 30006 (not 4 characters) or 30007 (not digits).
    public init(_ text: String) throws(TONError) {
        let bytes = Array(text.utf8)
        guard bytes.count == 4 else { throw .library(code: 30006) }
        guard bytes.allSatisfy({ (0x30...0x39).contains($0) }) else { throw .library(code: 30007) }
        self.bytes = bytes
    }

    private init(validated text: String) {
        bytes = Array(text.utf8)
    }

    /// Hides the digits: `"<PIN>"`.
    public var description: String { "<PIN>" }
}
