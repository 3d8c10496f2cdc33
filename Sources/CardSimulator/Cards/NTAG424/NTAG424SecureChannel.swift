import CardCrypto

/// The card side of the EV2 secure channel (NT4H2421Gx §9.1; AN12196 §4): session keys, TI,
/// command counter, IVs and truncated MACs (internal).
struct NTAG424Session: Hashable, Sendable {
    /// The key the session was opened with.
    var keyNumber: UInt8
    /// SesAuthENCKey.
    var encryptionKey: [UInt8]
    /// SesAuthMACKey.
    var macKey: [UInt8]
    /// Transaction identifier (4 bytes).
    var transactionIdentifier: [UInt8]
    /// CmdCtr, incremented after each command of the session.
    var commandCounter: UInt16

    /// SV1/SV2 (label `A5 5A` or `5A A5`): label ‖ 00 01 00 80 ‖ RndA[0..1] ‖ (RndA[2..7] ⊕
    /// RndB[0..5]) ‖ RndB[6..15] ‖ RndA[8..15].
    static func sessionVector(label: [UInt8], rndA: [UInt8], rndB: [UInt8]) -> [UInt8] {
        var vector = label + [0x00, 0x01, 0x00, 0x80] + rndA[0..<2]
        vector += (0..<6).map { rndA[2 + $0] ^ rndB[$0] }
        return vector + rndB[6..<16] + rndA[8..<16]
    }

    /// Session keys from the authentication key and both random numbers.
    static func keys(key: [UInt8], rndA: [UInt8], rndB: [UInt8]) throws(CardCryptoError) -> (enc: [UInt8], mac: [UInt8])
    {
        (
            try AESCMAC.mac(sessionVector(label: [0xA5, 0x5A], rndA: rndA, rndB: rndB), key: key),
            try AESCMAC.mac(sessionVector(label: [0x5A, 0xA5], rndA: rndA, rndB: rndB), key: key)
        )
    }

    var counterBytes: [UInt8] {
        [UInt8(truncatingIfNeeded: commandCounter), UInt8(truncatingIfNeeded: commandCounter >> 8)]
    }

    /// IVc = E(SesAuthENCKey, A5 5A ‖ TI ‖ CmdCtr ‖ 0⁸) at the current counter.
    func commandIV() throws(CardCryptoError) -> [UInt8] {
        try AES128Cipher(key: encryptionKey).encryptBlock(
            [0xA5, 0x5A] + transactionIdentifier + counterBytes + [UInt8](repeating: 0, count: 8))
    }

    /// IVr = E(SesAuthENCKey, 5A A5 ‖ TI ‖ CmdCtr ‖ 0⁸), taken after the counter moved on.
    func responseIV() throws(CardCryptoError) -> [UInt8] {
        try AES128Cipher(key: encryptionKey).encryptBlock(
            [0x5A, 0xA5] + transactionIdentifier + counterBytes + [UInt8](repeating: 0, count: 8))
    }

    /// MACt: bytes 1, 3, …, 15 of the CMAC under SesAuthMACKey.
    func truncatedMAC(_ message: [UInt8]) throws(CardCryptoError) -> [UInt8] {
        MACTruncation.ev2OddBytes(try AESCMAC.mac(message, key: macKey))
    }

    /// The MAC a command carries: Cmd ‖ CmdCtr ‖ TI ‖ header ‖ data.
    func commandMAC(ins: UInt8, _ body: [UInt8]) throws(CardCryptoError) -> [UInt8] {
        try truncatedMAC([ins] + counterBytes + transactionIdentifier + body)
    }

    /// The MAC of an answer (after the counter moved on): RC 00 ‖ CmdCtr ‖ TI ‖ data.
    func responseMAC(_ body: [UInt8]) throws(CardCryptoError) -> [UInt8] {
        try truncatedMAC([0x00] + counterBytes + transactionIdentifier + body)
    }
}

/// Byte-wise XOR of equal-length arrays (shorter wins; never traps).
func ntag424XOR(_ lhs: [UInt8], _ rhs: [UInt8]) -> [UInt8] { zip(lhs, rhs).map { $0 ^ $1 } }

/// Uppercase ASCII hex, as SDM mirrors bytes into the file.
func ntag424ASCIIHex(_ bytes: [UInt8]) -> [UInt8] {
    let digits = Array("0123456789ABCDEF".utf8)
    return bytes.flatMap { [digits[Int($0 >> 4)], digits[Int($0 & 0x0F)]] }
}
