import CardFlowCrypto

extension NTAG424SDMSessionKeys {
    /// SDMMAC = MACt(SesSDMFileReadMACKey, DynamicFileData[SDMMACInputOffset ..< SDMMACOffset])
    /// (NT4H2421Gx §9.3.6, AN12196 §3.4.4): the odd-indexed bytes of the CMAC, as for EV2 commands.
    ///
    /// `input` is the file content between the two offsets exactly as the tag serves it — URL text,
    /// not the bytes it encodes. When SDMMACInputOffset equals SDMMACOffset it is empty and the
    /// CMAC is that of the empty message.
    ///
    /// ```swift
    /// // AN12196 Table 5: the MAC covers the text from the enc value up to the MAC itself
    /// try keys.sdmMAC(over: Array("CEE9A53E3E463EF1F459635736738962&cmac=".utf8))   // ECC1E7F6C6C73BF6
    /// ```
    public func sdmMAC(over input: [UInt8] = []) throws(NTAG424SUNError) -> [UInt8] {
        try Self.sdmMAC(macKey: mac, over: input)
    }

    /// SDMMAC under SesSDMFileReadMACKey `macKey`.
    static func sdmMAC(macKey: [UInt8], over input: [UInt8]) throws(NTAG424SUNError) -> [UInt8] {
        MACTruncation.ev2OddBytes(try sunCrypto { () throws(CardCryptoError) in try AESCMAC.mac(input, key: macKey) })
    }
}
