/// The contents of a ``KeyStore`` without any key material: filled slots in slot order and
/// secrets in name order.
///
/// ```swift
/// let listing = try await FileKeyStore(path: "/tmp/keys.json").listing()
/// listing.keys.map(\.slot)        // [0, 3]
/// listing.secrets.map(\.name)     // ["ton.hmac.04A1B2C3"]
/// ```
public struct KeyStoreListing: Hashable, Sendable, Codable {
    public let keys: [KeySlotSummary]
    public let secrets: [SecretSummary]

    public init(keys: [KeySlotSummary], secrets: [SecretSummary]) {
        self.keys = keys
        self.secrets = secrets
    }

    /// Whether the store holds neither keys nor secrets.
    public var isEmpty: Bool { keys.isEmpty && secrets.isEmpty }
}
