import CardFlow
import CardFlowCrypto

/// The SDM session keys of one SUN message, SesSDMFileReadENCKey and SesSDMFileReadMACKey
/// (NT4H2421Gx §9.3.9, AN12196 §3.3):
///
/// ```
/// SV1 = C3 3C 00 01 00 80 [‖ UID] [‖ SDMReadCtr] [‖ zero padding to 16 bytes]
/// SV2 = 3C C3 00 01 00 80 [‖ UID] [‖ SDMReadCtr] [‖ zero padding to 16 bytes]
/// SesSDMFileReadENCKey = CMAC(SDMFileReadKey, SV1),  SesSDMFileReadMACKey = CMAC(SDMFileReadKey, SV2)
/// ```
///
/// UID and counter enter only when the tag mirrors them; the counter least significant byte first.
/// The key bytes never appear in `description`.
///
/// ```swift
/// // AN12196 Table 1 (rev. 1.x Table 2)
/// let picc = try NTAG424PICCData(uid: uid, readCounter: 1)
/// let keys = try NTAG424SDMSessionKeys(fileReadKey: key, piccData: picc)
/// ```
public struct NTAG424SDMSessionKeys: Sendable, Equatable, CustomStringConvertible {
    /// SesSDMFileReadENCKey: deciphers SDMENCFileData.
    public let encryption: [UInt8]
    /// SesSDMFileReadMACKey: computes SDMMAC.
    public let mac: [UInt8]
    /// The PICCData the keys were derived for.
    public let piccData: NTAG424PICCData

    /// The session vector label of SesSDMFileReadENCKey (SV1).
    public static let encryptionLabel: [UInt8] = [0xC3, 0x3C]
    /// The session vector label of SesSDMFileReadMACKey (SV2).
    public static let macLabel: [UInt8] = [0x3C, 0xC3]

    /// Derives the session keys of `piccData` from SDMFileReadKey.
    ///
    /// - Throws: ``NTAG424SUNError/invalidKey(_:length:)`` unless the key has 16 bytes.
    public init(fileReadKey: [UInt8], piccData: NTAG424PICCData) throws(NTAG424SUNError) {
        try checkSUNKey(fileReadKey, .fileRead)
        try self.init(
            fileReadKey: fileReadKey, piccData: piccData,
            mac: Self.derive(label: Self.macLabel, fileReadKey: fileReadKey, piccData: piccData))
    }

    /// With SesSDMFileReadMACKey already derived: a verifier derives it first and this key only
    /// for a message with file data. `fileReadKey` has been checked.
    init(fileReadKey: [UInt8], piccData: NTAG424PICCData, mac: [UInt8]) throws(NTAG424SUNError) {
        encryption = try Self.derive(label: Self.encryptionLabel, fileReadKey: fileReadKey, piccData: piccData)
        self.mac = mac
        self.piccData = piccData
    }

    /// CMAC(SDMFileReadKey, SV) for the vector with `label`; `fileReadKey` has been checked.
    static func derive(label: [UInt8], fileReadKey: [UInt8], piccData: NTAG424PICCData) throws(NTAG424SUNError)
        -> [UInt8]
    {
        let vector = sessionVector(label: label, piccData: piccData)
        return try sunCrypto { () throws(CardCryptoError) in try AESCMAC.mac(vector, key: fileReadKey) }
    }

    /// SV1 (`label` C3 3C) or SV2 (`label` 3C C3) for `piccData`.
    public static func sessionVector(label: [UInt8], piccData: NTAG424PICCData) -> [UInt8] {
        // One array, written in place: a verifying back end derives a vector per message.
        var vector: [UInt8] = []
        vector.reserveCapacity(32)
        vector.append(contentsOf: label)
        for byte: UInt8 in [0x00, 0x01, 0x00, 0x80] { vector.append(byte) }
        if let uid = piccData.uid { vector.append(contentsOf: uid) }
        if let counter = piccData.readCounter {
            // Least significant byte first.
            vector.append(UInt8(truncatingIfNeeded: counter))
            vector.append(UInt8(truncatingIfNeeded: counter >> 8))
            vector.append(UInt8(truncatingIfNeeded: counter >> 16))
        }
        vector.append(contentsOf: repeatElement(0, count: (16 - vector.count % 16) % 16))
        return vector
    }

    /// Compares both keys without an early exit.
    public static func == (lhs: NTAG424SDMSessionKeys, rhs: NTAG424SDMSessionKeys) -> Bool {
        constantTimeEqual(lhs.encryption + lhs.mac, rhs.encryption + rhs.mac) && lhs.piccData == rhs.piccData
    }

    /// Never the key bytes.
    public var description: String { "<SDM session keys>" }
}
