import CardFlow
import CardFlowCrypto

/// Verifies the SUN messages of NTAG 424 DNA tags on a server: a pure function of the URL's
/// parameters and the SDM keys, no card needed (NT4H2421Gx §9.3, AN12196 §3.4).
///
/// The order is fixed: decipher PICCData with SDMMetaReadKey, derive the SDM session keys from
/// SDMFileReadKey, verify SDMMAC (in constant time), and only then decipher SDMENCFileData. Nothing
/// of a message whose MAC does not verify is returned.
///
/// Parameters arrive as hex text in the URL; give their bytes (`[UInt8](hex:)`). The MAC input is
/// the URL text the tag MACs, from SDMMACInputOffset up to the MAC: empty when the two offsets are
/// equal (AN12196 Table 4), or for example the `enc` value and `&cmac=` (Table 5).
///
/// ```swift
/// // https://ntag.nxp.com/424?e=EF963FF7828658A599F3041510671E88&c=94EED9EE65337086 (AN12196 §3.4.2)
/// let verifier = try NTAG424SUNVerifier(metaReadKey: metaKey, fileReadKey: fileKey)
/// let message = try verifier.verify(piccData: try [UInt8](hex: e), mac: try [UInt8](hex: c))
/// message.uid           // 04DE5F1EACC040
/// message.readCounter   // 61 — compare with the last one seen for this UID
///
/// // Tags with diversified file read keys:
/// let perTag = try NTAG424SUNVerifier(metaReadKey: metaKey) { uid in uid.flatMap(keyStore.fileReadKey(for:)) }
/// ```
public struct NTAG424SUNVerifier: Sendable {
    /// SDMMetaReadKey, ready: made once, not per message.
    let metaCipher: AES128Cipher?
    let fileReadKey: @Sendable ([UInt8]?) -> [UInt8]?

    /// A verifier with one SDMFileReadKey for every tag.
    ///
    /// - Parameters:
    ///   - metaReadKey: SDMMetaReadKey; `nil` when only plain mirrors are verified.
    ///   - fileReadKey: SDMFileReadKey, the key the SDMMAC and SDMENCFileData session keys come from.
    /// - Throws: ``NTAG424SUNError/invalidKey(_:length:)`` unless the keys have 16 bytes.
    public init(metaReadKey: [UInt8]?, fileReadKey: [UInt8]) throws(NTAG424SUNError) {
        try checkSUNKey(fileReadKey, .fileRead)
        try self.init(metaReadKey: metaReadKey) { _ in fileReadKey }
    }

    /// A verifier that looks up each tag's SDMFileReadKey by its UID (`nil` when the UID is not
    /// mirrored); the lookup returns `nil` for a tag it does not know.
    ///
    /// - Throws: ``NTAG424SUNError/invalidKey(_:length:)`` unless the meta read key has 16 bytes.
    public init(metaReadKey: [UInt8]?, fileReadKey: @escaping @Sendable (_ uid: [UInt8]?) -> [UInt8]?)
        throws(NTAG424SUNError)
    {
        if let metaReadKey {
            try checkSUNKey(metaReadKey, .metaRead)
            metaCipher = try sunCrypto { () throws(CardCryptoError) in try AES128Cipher(key: metaReadKey) }
        } else {
            metaCipher = nil
        }
        self.fileReadKey = fileReadKey
    }

    /// Verifies a message with enciphered PICCData (`e` / `picc_data`), SDMMAC (`c` / `cmac`) and
    /// optionally SDMENCFileData (`enc`).
    ///
    /// - Throws: ``NTAG424SUNError``: a wrong length, a PICCData tag that shows a wrong
    ///   SDMMetaReadKey, an unknown tag, ``NTAG424SUNError/macMismatch``.
    public func verify(
        piccData: [UInt8], encFileData: [UInt8]? = nil, mac: [UInt8],
        macInput: [UInt8] = []
    ) throws(NTAG424SUNError) -> NTAG424SUNMessage {
        guard let metaCipher else { throw .invalidKey(.metaRead, length: nil) }
        let picc = try NTAG424PICCData(deciphering: piccData, metaCipher: metaCipher)
        return try verify(picc, encFileData: encFileData, mac: mac, macInput: macInput)
    }

    /// Verifies a message from a plain mirror: UID and counter as the URL shows them, and SDMMAC.
    ///
    /// ```swift
    /// // ?uid=041E3C8A2D6B80&ctr=000006&cmac=4B00064004B0B3D3
    /// try verifier.verify(uid: try [UInt8](hex: "041E3C8A2D6B80"), readCounter: 0x000006, mac: try [UInt8](hex: "4B00064004B0B3D3"))
    /// ```
    public func verify(
        uid: [UInt8]?, readCounter: UInt32?, encFileData: [UInt8]? = nil, mac: [UInt8],
        macInput: [UInt8] = []
    ) throws(NTAG424SUNError) -> NTAG424SUNMessage {
        try verify(
            try NTAG424PICCData(uid: uid, readCounter: readCounter), encFileData: encFileData, mac: mac,
            macInput: macInput)
    }

    private func verify(
        _ picc: NTAG424PICCData, encFileData: [UInt8]?, mac: [UInt8],
        macInput: [UInt8]
    ) throws(NTAG424SUNError) -> NTAG424SUNMessage {
        guard mac.count == 8 else { throw .invalidLength(.sdmMAC, expected: "8", actual: mac.count) }
        guard let key = fileReadKey(picc.uid) else { throw .unknownTag(uid: picc.uid) }
        try checkSUNKey(key, .fileRead)
        // SesSDMFileReadMACKey first; SesSDMFileReadENCKey (a third CMAC) only for file data.
        let macKey = try NTAG424SDMSessionKeys.derive(
            label: NTAG424SDMSessionKeys.macLabel, fileReadKey: key, piccData: picc)
        guard constantTimeEqual(try NTAG424SDMSessionKeys.sdmMAC(macKey: macKey, over: macInput), mac) else {
            throw .macMismatch
        }
        var fileData: [UInt8]?
        if let encFileData {
            fileData = try NTAG424SDMSessionKeys(fileReadKey: key, piccData: picc, mac: macKey)
                .decipherFileData(encFileData)
        }
        return NTAG424SUNMessage(
            uid: picc.uid, readCounter: picc.readCounter, fileData: fileData, piccDataTag: picc.tag)
    }
}
