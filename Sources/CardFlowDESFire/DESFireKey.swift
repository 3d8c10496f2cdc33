import CardFlow
import CardFlowCrypto

/// A DESFire key: cipher type, key bytes and key version.
///
/// For DES-family keys the version lives in the parity bits of the first 8 bytes (the card ignores
/// them cryptographically); for AES it is a separate byte sent with ChangeKey.
/// The bytes never appear in `description`.
///
/// ```swift
/// let key = try DESFireKey(type: .aes, hex: "00112233445566778899AABBCCDDEEFF", version: 1)
/// let factory = DESFireKey.defaultDES                     // PICC master key of a new card
/// let fromText = try DESFireKey(type: .aes, ascii: "Card Master Key!")
/// let fromStore = try await DESFireKey(slot: KeySlot(3), in: store)
/// ```
public struct DESFireKey: Sendable, Equatable, CustomStringConvertible {
    public let type: DESFireKeyType
    /// The key bytes, ``DESFireKeyType/keyLength`` long (a DES key given as 16 equal-half bytes is kept as 8).
    public let bytes: [UInt8]
    /// The key version (AES: separate byte; DES family: read from the parity bits).
    public let version: UInt8

    /// Creates a key. For DES-family keys a non-nil `version` is written into the parity bits.
    ///
    /// - Throws: ``DESFireError/invalidArgument(_:)`` for a wrong length.
    public init(type: DESFireKeyType, bytes: [UInt8], version: UInt8? = nil) throws(DESFireError) {
        var bytes = bytes
        if type == .des, bytes.count == 16, Array(bytes[0..<8]) == Array(bytes[8..<16]) { bytes = Array(bytes[0..<8]) }
        guard bytes.count == type.keyLength else {
            throw .invalidArgument("a \(type) key has \(type.keyLength) bytes, not \(bytes.count)")
        }
        self.type = type
        switch type {
        case .aes:
            self.bytes = bytes
            self.version = version ?? 0
        case .des, .twoKey3DES, .threeKey3DES:
            let withVersion = version.map { DESKeyVersion.setting($0, in: bytes, secondHalf: .unchanged) } ?? bytes
            self.bytes = withVersion
            self.version = DESKeyVersion.version(of: withVersion)
        }
    }

    /// A key from hex text (spaces allowed).
    public init(type: DESFireKeyType, hex: String, version: UInt8? = nil) throws(DESFireError) {
        let bytes: [UInt8]
        do { bytes = try [UInt8](hex: hex) } catch { throw .invalidArgument("key is not hex: \(error)") }
        try self.init(type: type, bytes: bytes, version: version)
    }

    /// A key from ASCII text whose bytes are the key (e.g. `"Card Master Key!"` for AES).
    public init(type: DESFireKeyType, ascii: String, version: UInt8? = nil) throws(DESFireError) {
        guard ascii.allSatisfy(\.isASCII) else { throw .invalidArgument("key text is not ASCII") }
        try self.init(type: type, bytes: Array(ascii.utf8), version: version)
    }

    /// A key from a key store slot (like uFR's reader "key index").
    ///
    /// - Throws: ``DESFireError/invalidArgument(_:)`` for an empty slot, or the store's ``/CardFlow/KeyStoreError``.
    public init(slot: KeySlot, in store: any KeyStore) async throws {
        guard let stored = try await store.key(in: slot) else {
            throw DESFireError.invalidArgument("key store \(slot) is empty")
        }
        try self.init(stored)
    }

    /// The DESFire key of a stored key (same bytes and version).
    public init(_ stored: StoredKey) throws(DESFireError) {
        let type: DESFireKeyType =
            switch stored.algorithm {
            case .des: .des
            case .twoKey3DES: .twoKey3DES
            case .threeKey3DES: .threeKey3DES
            case .aes128: .aes
            }
        try self.init(type: type, bytes: stored.bytes, version: type == .aes ? stored.version : nil)
    }

    /// The factory PICC master key: DES, 8 × 00.
    public static let defaultDES = try! DESFireKey(type: .des, bytes: [UInt8](repeating: 0, count: 8))
    /// The factory key of a new AES application: 16 × 00, version 0.
    public static let defaultAES = try! DESFireKey(type: .aes, bytes: [UInt8](repeating: 0, count: 16))

    /// Type and version only, never the bytes.
    public var description: String { "<\(type) key, version \(version)>" }

    /// The key as the card stores it for ChangeKey: DES doubled to 16 bytes, others as they are.
    var cardBytes: [UInt8] { type == .des ? bytes + bytes : bytes }

    /// Whether the session key follows the DES rule (DES, or 2K3DES with equal halves ignoring parity).
    var actsAsDES: Bool {
        switch type {
        case .des: true
        case .twoKey3DES: zip(bytes[0..<8], bytes[8..<16]).allSatisfy { ($0 & 0xFE) == ($1 & 0xFE) }
        case .threeKey3DES, .aes: false
        }
    }

    /// The block cipher keyed with this key.
    func cipher() throws(DESFireError) -> any BlockCipher {
        try crypto { () throws(CardCryptoError) -> any BlockCipher in
            type == .aes ? try AES128Cipher(key: bytes) : try TripleDESCipher(key: bytes)
        }
    }
}
