import CardCrypto

/// AuthenticateEV2First (71) and AuthenticateEV2NonFirst (77), NT4H2421Gx §10.4 / AN12196 §5.6.
extension SimulatedNTAG424Card {
    private static let zeroIV = [UInt8](repeating: 0, count: 16)

    /// Part 1 of AuthenticateEV2First: `KeyNo LenCap [PCDcap2]` → E(Kx, RndB) `91 AF`.
    /// Starting it ends any session.
    mutating func beginAuthenticateFirst(_ data: [UInt8]) throws(NTAG424Status) -> [UInt8] {
        session = nil
        sdmImage = nil
        try requireApplication()
        guard data.count >= 2, data[1] <= 6, data.count == 2 + Int(data[1]) else { throw .lengthError }
        let keyNumber = data[0]
        guard keyNumber <= 4 else { throw .noSuchKey }
        let rndB = randomBytes(16)
        let challenge = try encrypt(rndB, key: keys[Int(keyNumber)])
        pending = .authenticateFirst(keyNumber: keyNumber, rndB: rndB, pcdCapabilities: Array(data[2...]))
        return challenge
    }

    /// Part 2: E(Kx, RndA ‖ RndB') → E(Kx, TI ‖ RndA' ‖ PDcap2 ‖ PCDcap2); a new transaction
    /// with CmdCtr 0.
    mutating func completeAuthenticateFirst(
        keyNumber: UInt8, rndB: [UInt8], pcdCapabilities: [UInt8],
        token: [UInt8]
    ) throws(NTAG424Status) -> [UInt8] {
        let key = keys[Int(keyNumber)]
        let rndA = try checkToken(token, rndB: rndB, key: key)
        let transactionIdentifier = randomBytes(4)
        let capabilities = pcdCapabilities + [UInt8](repeating: 0, count: 6 - pcdCapabilities.count)
        let answer = try encrypt(
            transactionIdentifier + ByteRotation.rotatedLeft(rndA) + [UInt8](repeating: 0, count: 6)
                + capabilities, key: key)
        guard let sessionKeys = try? NTAG424Session.keys(key: key, rndA: rndA, rndB: rndB) else {
            throw .integrityError
        }
        session = NTAG424Session(
            keyNumber: keyNumber, encryptionKey: sessionKeys.enc, macKey: sessionKeys.mac,
            transactionIdentifier: transactionIdentifier, commandCounter: 0)
        return answer
    }

    /// Part 1 of AuthenticateEV2NonFirst: `KeyNo` inside a session → E(Kx, RndB) `91 AF`.
    mutating func beginAuthenticateNonFirst(_ data: [UInt8]) throws(NTAG424Status) -> [UInt8] {
        try requireApplication()
        guard data.count == 1 else { throw .lengthError }
        guard session != nil else { throw .authenticationError }
        let keyNumber = data[0]
        guard keyNumber <= 4 else { throw .noSuchKey }
        let rndB = randomBytes(16)
        let challenge = try encrypt(rndB, key: keys[Int(keyNumber)])
        pending = .authenticateNonFirst(keyNumber: keyNumber, rndB: rndB)
        return challenge
    }

    /// Part 2: E(Kx, RndA ‖ RndB') → E(Kx, RndA'); new session keys, same TI and CmdCtr.
    mutating func completeAuthenticateNonFirst(keyNumber: UInt8, rndB: [UInt8], token: [UInt8]) throws(NTAG424Status)
        -> [UInt8]
    {
        guard var current = session else { throw .authenticationError }
        let key = keys[Int(keyNumber)]
        let rndA = try checkToken(token, rndB: rndB, key: key)
        let answer = try encrypt(ByteRotation.rotatedLeft(rndA), key: key)
        guard let sessionKeys = try? NTAG424Session.keys(key: key, rndA: rndA, rndB: rndB) else {
            throw .integrityError
        }
        current.keyNumber = keyNumber
        current.encryptionKey = sessionKeys.enc
        current.macKey = sessionKeys.mac
        session = current
        sdmImage = nil
        return answer
    }

    /// Deciphers RndA ‖ RndB' and checks RndB' = rol(RndB); returns RndA.
    private func checkToken(_ token: [UInt8], rndB: [UInt8], key: [UInt8]) throws(NTAG424Status) -> [UInt8] {
        guard token.count == 32 else { throw .lengthError }
        guard let plain = try? AES128Cipher(key: key).decryptCBC(token, iv: Self.zeroIV) else {
            throw .authenticationError
        }
        guard Array(plain[16...]) == ByteRotation.rotatedLeft(rndB) else { throw .authenticationError }
        return Array(plain[..<16])
    }

    private func encrypt(_ data: [UInt8], key: [UInt8]) throws(NTAG424Status) -> [UInt8] {
        guard let cipher = try? AES128Cipher(key: key).encryptCBC(data, iv: Self.zeroIV) else { throw .integrityError }
        return cipher
    }
}
