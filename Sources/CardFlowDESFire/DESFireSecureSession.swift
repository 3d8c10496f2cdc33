import CardFlowCrypto

/// The state of an authenticated session: which key, which cipher, the session key and the IV.
///
/// EV1 sessions (0x1A, 0xAA) chain one IV through every command and response (CMAC or CBC);
/// legacy sessions (0x0A) start every cryptogram from a zero IV and MAC only data; EV2 sessions
/// (0x71, 0x77) keep their keys, TI and command counter in ``EV2Session``.
struct DESFireSecureSession: Sendable {
    enum Flavour: Sendable { case legacy, ev1, ev2 }

    let keyNumber: UInt8
    let keyType: DESFireKeyType
    let flavour: Flavour
    let cipher: any BlockCipher
    var iv: [UInt8]
    /// EV2: keys, TI and command counter; `nil` in legacy and EV1 sessions.
    var ev2: EV2Session?

    var blockSize: Int { cipher.blockSize }
    var zeroIV: [UInt8] { [UInt8](repeating: 0, count: cipher.blockSize) }

    // MARK: EV1

    /// CMAC from the current IV; the IV becomes the full CMAC block.
    mutating func cmac(_ message: [UInt8]) throws(DESFireError) -> [UInt8] {
        let (cipher, iv) = (self.cipher, self.iv)
        let mac = try crypto { () throws(CardCryptoError) in try BlockCipherCMAC.mac(message, cipher: cipher, iv: iv) }
        self.iv = mac
        return mac
    }

    /// EV1 CBC encryption of `data`, zero-padded to whole blocks, in place from the current IV; the
    /// IV becomes the last ciphertext block.
    mutating func encryptEV1(inPlace data: inout [UInt8]) throws(DESFireError) {
        let remainder = data.count % blockSize
        if remainder != 0 { data += repeatElement(0, count: blockSize - remainder) }
        let (cipher, iv) = (self.cipher, self.iv)
        try crypto { () throws(CardCryptoError) in try cipher.encryptCBC(inPlace: &data, iv: iv) }
        if !data.isEmpty { self.iv = Array(data.suffix(blockSize)) }
    }

    /// EV1 CBC decryption of `data` in place from the current IV; the IV becomes the last
    /// ciphertext block.
    mutating func decryptEV1(inPlace data: inout [UInt8]) throws(DESFireError) {
        guard !data.isEmpty else { return }
        let (cipher, iv, next) = (self.cipher, self.iv, Array(data.suffix(blockSize)))
        try crypto { () throws(CardCryptoError) in try cipher.decryptCBC(inPlace: &data, iv: iv) }
        self.iv = next
    }

    // MARK: Legacy

    /// Legacy 4-byte MAC: zero-padded data CBC-encrypted from a zero IV, first 4 bytes of the last block.
    func legacyMAC(_ data: [UInt8]) throws(DESFireError) -> [UInt8] {
        let (cipher, iv) = (self.cipher, zeroIV)
        let padded = BlockPadding.zeroPadded(data, blockSize: blockSize)
        guard !padded.isEmpty else { return try legacyMAC([UInt8](repeating: 0, count: blockSize)) }
        let ciphertext = try crypto { () throws(CardCryptoError) in try cipher.encryptCBC(padded, iv: iv) }
        return Array(ciphertext.suffix(blockSize).prefix(4))
    }

    /// Legacy "send mode" decipher of zero-padded plaintext from a zero IV.
    func legacyEncipher(_ plaintext: [UInt8]) throws(DESFireError) -> [UInt8] {
        let (cipher, iv) = (self.cipher, zeroIV)
        let padded = BlockPadding.zeroPadded(plaintext, blockSize: blockSize)
        return try crypto { () throws(CardCryptoError) in try cipher.legacySendModeDecipher(padded, iv: iv) }
    }

    /// Legacy response decryption: standard CBC from a zero IV.
    func legacyDecrypt(_ ciphertext: [UInt8]) throws(DESFireError) -> [UInt8] {
        let (cipher, iv) = (self.cipher, zeroIV)
        return try crypto { () throws(CardCryptoError) in try cipher.decryptCBC(ciphertext, iv: iv) }
    }
}
