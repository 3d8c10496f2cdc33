import CardFlowCrypto

/// What an NTAG 424 DNA mirrors about itself into a SUN message: UID and SDMReadCtr
/// (NT4H2421Gx §9.3.3–9.3.4, AN12196 §3.4.1–3.4.2).
///
/// Enciphered (SDMMetaRead access right a key number), PICCData is one AES block under
/// SDMMetaReadKey: `PICCDataTag ‖ [UID] ‖ [SDMReadCtr] ‖ random padding`. The tag byte says what
/// follows: bit 7 UID mirrored, bit 6 SDMReadCtr mirrored, bits 5–4 reserved (0), bits 3–0 the UID
/// length (7). SDMReadCtr is 3 bytes, least significant first. Plain (SDMMetaRead `E`), UID and
/// counter appear in the URL as text and are given to ``init(uid:readCounter:)`` directly; the URL
/// writes the counter most significant first (`ctr=000001` is 1).
///
/// ```swift
/// // AN12196 Table 2 (rev. 1.x Table 3)
/// let picc = try NTAG424PICCData(deciphering: e, metaReadKey: [UInt8](repeating: 0, count: 16))
/// picc.uid          // 04DE5F1EACC040
/// picc.readCounter  // 61
/// ```
public struct NTAG424PICCData: Sendable, Equatable {
    /// The PICCDataTag (`C7` when both are mirrored), or `nil` for a plain mirror.
    public let tag: UInt8?
    /// The 7-byte UID, when mirrored.
    public let uid: [UInt8]?
    /// SDMReadCtr, when mirrored.
    public let readCounter: UInt32?

    /// UID and counter read from a plain mirror.
    ///
    /// - Throws: ``NTAG424SUNError/invalidLength(_:expected:actual:)`` for a UID that is not 7 bytes,
    ///   ``NTAG424SUNError/counterOutOfRange(_:)`` above `FFFFFF`.
    public init(uid: [UInt8]?, readCounter: UInt32?) throws(NTAG424SUNError) {
        if let uid, uid.count != 7 { throw .invalidLength(.uid, expected: "7", actual: uid.count) }
        if let readCounter, readCounter > 0xFF_FFFF { throw .counterOutOfRange(readCounter) }
        self.tag = nil
        self.uid = uid
        self.readCounter = readCounter
    }

    /// Deciphers PICCData (`e`, `picc_data`) with SDMMetaReadKey.
    ///
    /// - Throws: ``NTAG424SUNError/invalidLength(_:expected:actual:)`` unless 16 bytes (AES mode;
    ///   LRP's 24-byte PICCData is not supported), ``NTAG424SUNError/unexpectedPICCDataTag(_:)``
    ///   when the tag byte is not one — most often a wrong key.
    public init(deciphering piccData: [UInt8], metaReadKey: [UInt8]) throws(NTAG424SUNError) {
        try checkSUNKey(metaReadKey, .metaRead)
        try self.init(
            deciphering: piccData,
            metaCipher: sunCrypto { () throws(CardCryptoError) in try AES128Cipher(key: metaReadKey) })
    }

    /// With SDMMetaReadKey ready as a cipher (a verifier makes it once).
    init(deciphering piccData: [UInt8], metaCipher: AES128Cipher) throws(NTAG424SUNError) {
        guard piccData.count == 16 else {
            throw .invalidLength(.piccData, expected: "16 (AES)", actual: piccData.count)
        }
        let plain = try sunCrypto { () throws(CardCryptoError) in try metaCipher.decryptBlock(piccData) }
        let tag = plain[0]
        let (uidMirrored, counterMirrored) = (tag & 0x80 != 0, tag & 0x40 != 0)
        guard tag & 0x30 == 0, uidMirrored || counterMirrored, !uidMirrored || tag & 0x0F == 7 else {
            throw .unexpectedPICCDataTag(tag)
        }
        var offset = 1
        var uid: [UInt8]?
        if uidMirrored {
            uid = Array(plain[offset..<offset + 7])
            offset += 7
        }
        var readCounter: UInt32?
        if counterMirrored {
            readCounter = UInt32(plain[offset]) | UInt32(plain[offset + 1]) << 8 | UInt32(plain[offset + 2]) << 16
        }
        self.tag = tag
        self.uid = uid
        self.readCounter = readCounter
    }

    /// SDMReadCtr as the session vectors and IVe carry it: 3 bytes, least significant first.
    public var readCounterBytes: [UInt8]? {
        readCounter.map { counter in (0..<3).map { UInt8(truncatingIfNeeded: counter >> (8 * $0)) } }
    }
}
