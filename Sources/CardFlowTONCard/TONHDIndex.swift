/// An HD index for Ed25519 keys: 1 to 10 decimal digits, sent as ASCII ("171" ⇒ `31 37 31`).
/// The card derives `m/44'/396'/0'/0'/<index>'`; the default path is index "0".
///
/// ```swift
/// let index = try TONHDIndex("171")
/// ```
public struct TONHDIndex: Sendable, Hashable, CustomStringConvertible {
    /// The ASCII digits.
    public let bytes: [UInt8]

    /// - Throws: 30013 (empty or longer than 10) or 30014 (not digits).
    public init(_ text: String) throws(TONError) {
        let bytes = Array(text.utf8)
        guard (1...10).contains(bytes.count) else { throw .library(code: 30013) }
        guard bytes.allSatisfy({ (0x30...0x39).contains($0) }) else { throw .library(code: 30014) }
        self.bytes = bytes
    }

    public var description: String { String(decoding: bytes, as: UTF8.self) }
}
