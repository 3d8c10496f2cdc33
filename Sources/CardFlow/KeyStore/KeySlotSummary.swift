/// What a ``KeyStore`` listing says about one filled key slot: everything but the key bytes.
///
/// ```swift
/// for summary in try await store.listing().keys {
///     print(summary)   // slot 0: AES-128, version 2
/// }
/// ```
public struct KeySlotSummary: Hashable, Sendable, Codable, CustomStringConvertible {
    /// The slot number, 0...15.
    public let slot: Int
    public let algorithm: SymmetricKeyAlgorithm
    public let version: UInt8

    public init(slot: KeySlot, algorithm: SymmetricKeyAlgorithm, version: UInt8) {
        self.slot = slot.number
        self.algorithm = algorithm
        self.version = version
    }

    /// For example `"slot 0: AES-128, version 2"`.
    public var description: String { "slot \(slot): \(algorithm.displayName), version \(version)" }
}
