import CardFlowCrypto

extension NTAG424SDMSessionKeys {
    /// Deciphers SDMENCFileData (NT4H2421Gx §9.3.7, AN12196 §3.4.3): AES-CBC under
    /// SesSDMFileReadENCKey from `IVe = E(SesSDMFileReadENCKey, SDMReadCtr ‖ 00 × 13)`.
    ///
    /// `data` is the cryptogram the hex text in the URL encodes, a whole number of 16-byte blocks.
    /// The result is the file's plaintext as written; the tag adds no padding of its own.
    ///
    /// ```swift
    /// // AN12196 Table 3: sixteen "x"
    /// try keys.decipherFileData(encFileData)   // 78787878787878787878787878787878
    /// ```
    ///
    /// - Throws: ``NTAG424SUNError/fileDataNeedsUIDAndCounter`` unless UID and counter are mirrored,
    ///   ``NTAG424SUNError/invalidLength(_:expected:actual:)`` for data that is not whole blocks.
    public func decipherFileData(_ data: [UInt8]) throws(NTAG424SUNError) -> [UInt8] {
        guard piccData.uid != nil, piccData.readCounter != nil else { throw .fileDataNeedsUIDAndCounter }
        guard !data.isEmpty, data.count % 16 == 0 else {
            throw .invalidLength(.encFileData, expected: "a positive multiple of 16", actual: data.count)
        }
        let (key, iv) = (encryption, try fileDataIV())
        return try sunCrypto { () throws(CardCryptoError) in try AES128Cipher(key: key).decryptCBC(data, iv: iv) }
    }

    /// IVe for this message's SDMENCFileData: `E(SesSDMFileReadENCKey, SDMReadCtr ‖ 00 × 13)`.
    ///
    /// - Throws: ``NTAG424SUNError/fileDataNeedsUIDAndCounter`` unless the counter is mirrored.
    public func fileDataIV() throws(NTAG424SUNError) -> [UInt8] {
        guard let counter = piccData.readCounterBytes else { throw .fileDataNeedsUIDAndCounter }
        let key = encryption
        return try sunCrypto { () throws(CardCryptoError) in
            try AES128Cipher(key: key).encryptBlock(counter + [UInt8](repeating: 0, count: 13))
        }
    }
}
