import CardFlowCrypto

/// Per-card DESFire application keys from one AES master key, by NXP AN10922 §2.2
/// (`M = UID ‖ AID ‖ system identifier`, the AID least significant byte first as DESFire sends it).
///
/// A fleet whose cards share one application key loses every card when one key leaks; with
/// diversification each card holds its own key, and whoever keeps the master key (a key store
/// slot) computes it from the card's UID when the card is presented.
///
/// ```swift
/// let master = try DESFireKey(type: .aes, hex: "00112233445566778899AABBCCDDEEFF", version: 1)
/// let diversification = try DESFireKeyDiversification(masterKey: master, systemIdentifier: Array("NXP Abu".utf8))
/// let uid = try await client.getCardUID()                  // after any authentication
/// let cardKey = try diversification.key(uid: uid, application: try DESFireApplicationID(hex: "F54230"))
/// try await client.selectApplication(try DESFireApplicationID(hex: "F54230"))
/// try await client.authenticate(keyNumber: 0, key: cardKey)
/// ```
public struct DESFireKeyDiversification: Sendable, Equatable, CustomStringConvertible {
    /// The AES master key (its version becomes the version of every derived key).
    public let masterKey: DESFireKey
    /// The bytes naming the system, appended to `M` after the AID (may be empty).
    public let systemIdentifier: [UInt8]

    /// The longest system identifier: `M` has at most 31 bytes, of which a 7-byte UID (what
    /// GetCardUID returns) and the 3-byte AID take 10.
    public static let maximumSystemIdentifierLength = 21

    /// Creates a diversification from an AES master key.
    ///
    /// - Throws: ``DESFireError/invalidArgument(_:)`` when the master key is not AES or the
    ///   system identifier is longer than ``maximumSystemIdentifierLength`` bytes.
    public init(masterKey: DESFireKey, systemIdentifier: [UInt8] = []) throws(DESFireError) {
        guard masterKey.type == .aes else {
            throw .invalidArgument("AN10922 AES-128 diversification needs an AES master key, not \(masterKey.type)")
        }
        guard systemIdentifier.count <= Self.maximumSystemIdentifierLength else {
            throw .invalidArgument(
                "a system identifier of \(systemIdentifier.count) bytes is longer than the \(Self.maximumSystemIdentifierLength) that fit"
            )
        }
        self.masterKey = masterKey
        self.systemIdentifier = systemIdentifier
    }

    /// The AES key of `application` on the card with `uid`: AN10922 of `UID ‖ AID ‖ system
    /// identifier` under the master key, with the master key's version.
    ///
    /// - Throws: ``DESFireError/invalidArgument(_:)`` for an empty UID or one so long that `M`
    ///   exceeds 31 bytes.
    public func key(uid: [UInt8], application: DESFireApplicationID) throws(DESFireError) -> DESFireKey {
        guard !uid.isEmpty else { throw .invalidArgument("diversification needs the card's UID") }
        let bytes: [UInt8]
        do throws(CardCryptoError) {
            let input = try AN10922.desfireInput(
                uid: uid, applicationID: application.value, systemIdentifier: systemIdentifier)
            bytes = try AN10922.diversifyAES128(masterKey: masterKey.bytes, input: input)
        } catch .invalidDiversificationInput(let length, let accepted) {
            throw .invalidArgument(
                "UID ‖ AID ‖ system identifier is \(length) bytes; AN10922 takes \(accepted.lowerBound) to \(accepted.upperBound)"
            )
        } catch {
            throw .crypto(error)
        }
        return try DESFireKey(type: .aes, bytes: bytes, version: masterKey.version)
    }

    /// The master key's type and version and the system identifier's length, never key bytes.
    public var description: String {
        "<AN10922 diversification of \(masterKey), system identifier of \(systemIdentifier.count) bytes>"
    }
}
