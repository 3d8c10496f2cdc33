import CardFlowCrypto

/// The card side of AuthenticateEV2First (`71`) and AuthenticateEV2NonFirst (`77`), shared by the
/// DESFire EV2 and NTAG 424 DNA models (NT4H2421Gx §10.4, AN12196 §5.6): the cryptograms and the
/// session they open. Every cryptogram is AES-CBC from a zero IV.
enum EV2CardAuthentication {
    private static let zeroIV = [UInt8](repeating: 0, count: 16)

    /// Part 1 answer: E(Kx, RndB).
    static func challenge(rndB: [UInt8], key: [UInt8]) throws(CardCryptoError) -> [UInt8] {
        try AES128Cipher(key: key).encryptCBC(rndB, iv: zeroIV)
    }

    /// Deciphers the reader's E(Kx, RndA ‖ RndB') and returns RndA, or nil when the token is not
    /// 32 bytes or RndB' is not RndB rotated left (the reader does not know the key).
    static func readerRandom(token: [UInt8], rndB: [UInt8], key: [UInt8]) -> [UInt8]? {
        guard token.count == 32, let plain = try? AES128Cipher(key: key).decryptCBC(token, iv: zeroIV) else {
            return nil
        }
        guard Array(plain[16...]) == ByteRotation.rotatedLeft(rndB) else { return nil }
        return Array(plain[..<16])
    }

    /// First, part 2: E(Kx, TI ‖ RndA' ‖ PDcap2 ‖ PCDcap2) and a new transaction at CmdCtr 0.
    static func first(
        keyNumber: UInt8, key: [UInt8], rndA: [UInt8], rndB: [UInt8], transactionIdentifier: [UInt8],
        pcdCapabilities: [UInt8]
    ) throws(CardCryptoError) -> (answer: [UInt8], session: EV2CardSession) {
        let capabilities = Array((pcdCapabilities + [UInt8](repeating: 0, count: 6)).prefix(6))
        let answer = try AES128Cipher(key: key).encryptCBC(
            transactionIdentifier + ByteRotation.rotatedLeft(rndA) + [UInt8](repeating: 0, count: 6) + capabilities,
            iv: zeroIV)
        let keys = try EV2CardSession.keys(key: key, rndA: rndA, rndB: rndB)
        let session = EV2CardSession(
            keyNumber: keyNumber, encryptionKey: keys.enc, macKey: keys.mac,
            transactionIdentifier: transactionIdentifier, commandCounter: 0)
        return (answer, session)
    }

    /// NonFirst, part 2: E(Kx, RndA') and `current` with new session keys (TI and CmdCtr kept).
    static func nonFirst(
        keyNumber: UInt8, key: [UInt8], rndA: [UInt8], rndB: [UInt8], continuing current: EV2CardSession
    ) throws(CardCryptoError) -> (answer: [UInt8], session: EV2CardSession) {
        let answer = try AES128Cipher(key: key).encryptCBC(ByteRotation.rotatedLeft(rndA), iv: zeroIV)
        let keys = try EV2CardSession.keys(key: key, rndA: rndA, rndB: rndB)
        var session = current
        session.keyNumber = keyNumber
        session.encryptionKey = keys.enc
        session.macKey = keys.mac
        return (answer, session)
    }
}
