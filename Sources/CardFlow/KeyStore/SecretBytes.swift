/// The bytes of a named secret in a ``KeyStore`` (for example an HMAC key stored as
/// `"ton.hmac.<serial>"`).
///
/// Like ``StoredKey`` it never shows its bytes in text: `description`, `debugDescription` and
/// mirrors only give the length.
///
/// ```swift
/// let secret = try SecretBytes([UInt8](hex: "00112233445566778899AABBCCDDEEFF"))
/// print(secret)   // <secret, 16 bytes>
/// try await store.setSecret(secret, named: "ton.hmac.04A1B2C3")
/// ```
public struct SecretBytes: Sendable, Equatable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable
{
    /// The secret itself, at least one byte.
    public let bytes: [UInt8]

    /// Wraps `bytes`.
    ///
    /// - Throws: ``KeyStoreError/emptySecret`` when `bytes` is empty.
    public init(_ bytes: [UInt8]) throws(KeyStoreError) {
        guard !bytes.isEmpty else { throw .emptySecret }
        self.bytes = bytes
    }

    /// How many bytes the secret has.
    public var count: Int { bytes.count }

    /// For example `"<secret, 16 bytes>"`.
    public var description: String { "<secret, \(bytes.count) \(bytes.count == 1 ? "byte" : "bytes")>" }

    /// Same as ``description``: the bytes stay hidden.
    public var debugDescription: String { description }

    /// Shows the length only.
    public var customMirror: Mirror {
        Mirror(self, children: ["count": bytes.count], displayStyle: .struct)
    }

    /// Compares the bytes without an early exit.
    public static func == (lhs: SecretBytes, rhs: SecretBytes) -> Bool {
        constantTimeEqual(lhs.bytes, rhs.bytes)
    }
}
