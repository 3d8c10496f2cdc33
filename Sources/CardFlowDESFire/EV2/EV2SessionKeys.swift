import CardFlow
import CardFlowCrypto

/// The two AES session keys of an EV2 secure channel, SesAuthENCKey and SesAuthMACKey.
///
/// Both are AES-CMACs under the authentication key of a 32-byte session vector built from RndA and
/// RndB (NT4H2421Gx §9.1.7, AN12196 §5.6 Table 14 steps 25–28):
///
/// ```
/// SV1 = A5 5A 00 01 00 80 ‖ RndA[15..14] ‖ (RndA[13..8] ⊕ RndB[15..10]) ‖ RndB[9..0] ‖ RndA[7..0]
/// SV2 = 5A A5 00 01 00 80 ‖ (the same 26 bytes)
/// SesAuthENCKey = CMAC(Kx, SV1),  SesAuthMACKey = CMAC(Kx, SV2)
/// ```
///
/// The data sheet numbers bytes most significant first (RndA[15] is the first byte sent), so in
/// array terms the 26 bytes are `rndA[0..<2] ‖ (rndA[2..<8] ⊕ rndB[0..<6]) ‖ rndB[6..<16] ‖ rndA[8..<16]`.
/// The key bytes never appear in `description`.
///
/// ```swift
/// let keys = try EV2SessionKeys(key: [UInt8](repeating: 0, count: 16), rndA: rndA, rndB: rndB)
/// keys.encryption   // SesAuthENCKey, 16 bytes
/// ```
public struct EV2SessionKeys: Sendable, Equatable, CustomStringConvertible {
    /// SesAuthENCKey: enciphers CommMode.Full data and derives the IVs.
    public let encryption: [UInt8]
    /// SesAuthMACKey: MACs every command and answer of CommMode.MAC and CommMode.Full.
    public let mac: [UInt8]
    /// SesAuthENCKey keyed once for the session's IVs and cryptograms.
    let encryptionCipher: AES128Cipher
    /// SesAuthMACKey keyed once for the session's MACs.
    let macCipher: AES128Cipher

    /// The session vector label of SesAuthENCKey (SV1).
    public static let encryptionLabel: [UInt8] = [0xA5, 0x5A]
    /// The session vector label of SesAuthMACKey (SV2).
    public static let macLabel: [UInt8] = [0x5A, 0xA5]

    /// Session keys known from elsewhere (a published example, a resumed session).
    ///
    /// - Throws: ``EV2Error/invalidArgument(_:)`` unless both keys are 16 bytes.
    public init(encryption: [UInt8], mac: [UInt8]) throws(EV2Error) {
        guard encryption.count == 16, mac.count == 16 else {
            throw .invalidArgument("EV2 session keys have 16 bytes, not \(encryption.count) and \(mac.count)")
        }
        self.encryption = encryption
        self.mac = mac
        self.encryptionCipher = try ev2Crypto { () throws(CardCryptoError) in try AES128Cipher(key: encryption) }
        self.macCipher = try ev2Crypto { () throws(CardCryptoError) in try AES128Cipher(key: mac) }
    }

    /// Derives the session keys of an authentication with the AES key `key`.
    ///
    /// - Throws: ``EV2Error/invalidArgument(_:)`` unless key, RndA and RndB are 16 bytes each.
    public init(key: [UInt8], rndA: [UInt8], rndB: [UInt8]) throws(EV2Error) {
        guard key.count == 16 else { throw .invalidArgument("an EV2 AES key has 16 bytes, not \(key.count)") }
        let sv1 = try Self.sessionVector(label: Self.encryptionLabel, rndA: rndA, rndB: rndB)
        let sv2 = try Self.sessionVector(label: Self.macLabel, rndA: rndA, rndB: rndB)
        let encryption = try ev2Crypto { () throws(CardCryptoError) in try AESCMAC.mac(sv1, key: key) }
        let mac = try ev2Crypto { () throws(CardCryptoError) in try AESCMAC.mac(sv2, key: key) }
        try self.init(encryption: encryption, mac: mac)
    }

    /// The 32-byte session vector SV1 (`label` A5 5A) or SV2 (`label` 5A A5).
    ///
    /// - Throws: ``EV2Error/invalidArgument(_:)`` unless `label` has 2 bytes and RndA and RndB 16 each.
    public static func sessionVector(label: [UInt8], rndA: [UInt8], rndB: [UInt8]) throws(EV2Error) -> [UInt8] {
        guard label.count == 2 else { throw .invalidArgument("a session vector label has 2 bytes, not \(label.count)") }
        guard rndA.count == 16, rndB.count == 16 else {
            throw .invalidArgument("RndA and RndB have 16 bytes, not \(rndA.count) and \(rndB.count)")
        }
        let mixed: [UInt8] = zip(rndA[2..<8], rndB[0..<6]).map { $0 ^ $1 }
        let head: [UInt8] = label + [0x00, 0x01, 0x00, 0x80] + Array(rndA[0..<2])
        return head + mixed + Array(rndB[6..<16]) + Array(rndA[8..<16])
    }

    /// Compares both keys without an early exit.
    public static func == (lhs: EV2SessionKeys, rhs: EV2SessionKeys) -> Bool {
        constantTimeEqual(lhs.encryption + lhs.mac, rhs.encryption + rhs.mac)
    }

    /// Never the key bytes.
    public var description: String { "<EV2 session keys>" }
}
