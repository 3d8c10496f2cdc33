/// What a ``KeyStore`` listing says about one named secret: its name and length, never its bytes.
///
/// ```swift
/// for summary in try await store.listing().secrets {
///     print(summary)   // ton.hmac.04A1B2C3: 16 bytes
/// }
/// ```
public struct SecretSummary: Hashable, Sendable, Codable, CustomStringConvertible {
    public let name: String
    /// The secret's length in bytes.
    public let length: Int

    public init(name: String, length: Int) {
        self.name = name
        self.length = length
    }

    /// For example `"ton.hmac.04A1B2C3: 16 bytes"`.
    public var description: String { "\(name): \(length) \(length == 1 ? "byte" : "bytes")" }
}
