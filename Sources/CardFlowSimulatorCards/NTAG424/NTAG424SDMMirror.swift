import CardFlowCrypto

/// Secure Dynamic Messaging: the NDEF file image an unauthenticated read returns
/// (NT4H2421Gx §9.3; AN12196 §3.3–3.4). Pure functions of the file, settings, keys and counter.
enum NTAG424SDMMirror {
    /// PICCDataTag: bit 7 UID mirrored, bit 6 SDMReadCtr mirrored, bits 3–0 the UID length.
    static func piccDataTag(_ sdm: SimulatedNTAG424SDMSettings) -> UInt8 {
        (sdm.mirrorsUID ? 0x87 : 0) | (sdm.mirrorsReadCounter ? 0x40 : 0)
    }

    /// How many random bytes pad PICCData to one block.
    static func piccDataPaddingLength(_ sdm: SimulatedNTAG424SDMSettings) -> Int {
        16 - 1 - (sdm.mirrorsUID ? 7 : 0) - (sdm.mirrorsReadCounter ? 3 : 0)
    }

    static func counterBytes(_ counter: UInt32) -> [UInt8] {
        [
            UInt8(truncatingIfNeeded: counter), UInt8(truncatingIfNeeded: counter >> 8),
            UInt8(truncatingIfNeeded: counter >> 16),
        ]
    }

    /// SV1 (`C3 3C`) / SV2 (`3C C3`) ‖ 00 01 00 80 [‖ UID] [‖ SDMReadCtr] ‖ zero padding to 16 bytes.
    static func sessionVector(label: [UInt8], sdm: SimulatedNTAG424SDMSettings, uid: [UInt8], counter: UInt32)
        -> [UInt8]
    {
        var vector = label + [0x00, 0x01, 0x00, 0x80]
        if sdm.mirrorsUID { vector += uid }
        if sdm.mirrorsReadCounter { vector += counterBytes(counter) }
        return vector + [UInt8](repeating: 0, count: (16 - vector.count % 16) % 16)
    }

    /// The mirrored image of `file`.
    static func image(
        file: [UInt8], sdm: SimulatedNTAG424SDMSettings, uid: [UInt8], counter: UInt32, keys: [[UInt8]],
        padding: [UInt8]
    ) throws(CardCryptoError) -> [UInt8] {
        var image = file
        func put(_ text: [UInt8], at offset: Int?) {
            guard let offset, offset >= 0, offset + text.count <= image.count else { return }
            image.replaceSubrange(offset..<offset + text.count, with: text)
        }
        func key(_ number: UInt8) -> [UInt8]? { number <= 4 && Int(number) < keys.count ? keys[Int(number)] : nil }

        if sdm.metaReadKey == 0xE {
            if sdm.mirrorsUID { put(ntag424ASCIIHex(uid), at: sdm.uidOffset) }
            if sdm.mirrorsReadCounter {
                put(ntag424ASCIIHex(Array(counterBytes(counter).reversed())), at: sdm.readCounterOffset)
            }
        } else if let metaKey = key(sdm.metaReadKey) {
            var plain = [piccDataTag(sdm)]
            if sdm.mirrorsUID { plain += uid }
            if sdm.mirrorsReadCounter { plain += counterBytes(counter) }
            plain += padding.prefix(16 - plain.count)
            plain += [UInt8](repeating: 0, count: max(0, 16 - plain.count))
            put(ntag424ASCIIHex(try AES128Cipher(key: metaKey).encryptBlock(plain)), at: sdm.piccDataOffset)
        }
        guard let fileKey = key(sdm.fileReadKey), let macInput = sdm.macInputOffset, let macOffset = sdm.macOffset,
            macInput <= macOffset, macOffset <= image.count
        else { return image }
        let encKey = try AESCMAC.mac(
            sessionVector(label: [0xC3, 0x3C], sdm: sdm, uid: uid, counter: counter), key: fileKey)
        let macKey = try AESCMAC.mac(
            sessionVector(label: [0x3C, 0xC3], sdm: sdm, uid: uid, counter: counter), key: fileKey)
        if sdm.encryptsFileData, let encOffset = sdm.encOffset, let encLength = sdm.encLength,
            encOffset >= 0, encLength >= 32, encOffset + encLength <= file.count
        {
            // The first half of the placeholder is the plaintext; its cryptogram fills the whole.
            let plain = Array(file[encOffset..<encOffset + encLength / 2])
            let cipher = try AES128Cipher(key: encKey)
            let iv = try cipher.encryptBlock(counterBytes(counter) + [UInt8](repeating: 0, count: 13))
            put(ntag424ASCIIHex(try cipher.encryptCBC(plain, iv: iv)), at: encOffset)
        }
        let mac = MACTruncation.ev2OddBytes(try AESCMAC.mac(Array(image[macInput..<macOffset]), key: macKey))
        put(ntag424ASCIIHex(mac), at: macOffset)
        return image
    }
}
