/// A symmetric key as a ``KeyStore`` keeps it in a slot: algorithm, key bytes and key version.
///
/// The key bytes never appear in text: `description`, `debugDescription` and mirrors (used by
/// `dump`, string interpolation and debuggers) name only the algorithm and version.
///
/// ```swift
/// let key = try StoredKey(algorithm: .aes128, bytes: [UInt8](repeating: 0, count: 16), version: 2)
/// print(key)             // <AES-128 key, version 2>
/// try await store.setKey(key, in: KeySlot(0))
/// ```
///
/// Equality compares the key bytes in constant time. DES parity bits are stored as given and not
/// checked.
public struct StoredKey: Sendable, Equatable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// What the key is for.
    public let algorithm: SymmetricKeyAlgorithm
    /// The key material, exactly ``SymmetricKeyAlgorithm/keyLength`` bytes.
    public let bytes: [UInt8]
    /// The key version the card knows the key by (e.g. a DESFire key version), 0 when unused.
    public let version: UInt8

    /// Checks that `bytes` is as long as `algorithm` needs.
    ///
    /// - Throws: ``KeyStoreError/wrongKeyLength(algorithm:byteCount:)`` otherwise.
    public init(algorithm: SymmetricKeyAlgorithm, bytes: [UInt8], version: UInt8 = 0) throws(KeyStoreError) {
        guard bytes.count == algorithm.keyLength else {
            throw .wrongKeyLength(algorithm: algorithm, byteCount: bytes.count)
        }
        self.algorithm = algorithm
        self.bytes = bytes
        self.version = version
    }

    /// What the key is without its bytes, e.g. `"<AES-128 key, version 2>"`.
    public var description: String { "<\(algorithm.displayName) key, version \(version)>" }

    /// Same as ``description``: the bytes stay hidden.
    public var debugDescription: String { description }

    /// Shows algorithm and version only.
    public var customMirror: Mirror {
        Mirror(self, children: ["algorithm": algorithm, "version": version], displayStyle: .struct)
    }

    /// Compares algorithm, version and bytes; the bytes without an early exit.
    public static func == (lhs: StoredKey, rhs: StoredKey) -> Bool {
        lhs.algorithm == rhs.algorithm && lhs.version == rhs.version
            && constantTimeEqual(lhs.bytes, rhs.bytes)
    }
}
