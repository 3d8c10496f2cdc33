import CardFlowCrypto

/// AuthenticateEV2First (71) and AuthenticateEV2NonFirst (77), NT4H2421Gx §10.4 / AN12196 §5.6.
extension SimulatedNTAG424Card {
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
        guard
            let opened = try? EV2CardAuthentication.first(
                keyNumber: keyNumber, key: key, rndA: rndA, rndB: rndB,
                transactionIdentifier: transactionIdentifier, pcdCapabilities: pcdCapabilities)
        else { throw .integrityError }
        session = opened.session
        return opened.answer
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
        guard let current = session else { throw .authenticationError }
        let key = keys[Int(keyNumber)]
        let rndA = try checkToken(token, rndB: rndB, key: key)
        guard
            let continued = try? EV2CardAuthentication.nonFirst(
                keyNumber: keyNumber, key: key, rndA: rndA, rndB: rndB, continuing: current)
        else { throw .integrityError }
        session = continued.session
        sdmImage = nil
        return continued.answer
    }

    /// Deciphers RndA ‖ RndB' and checks RndB' = rol(RndB); returns RndA.
    private func checkToken(_ token: [UInt8], rndB: [UInt8], key: [UInt8]) throws(NTAG424Status) -> [UInt8] {
        guard token.count == 32 else { throw .lengthError }
        guard let rndA = EV2CardAuthentication.readerRandom(token: token, rndB: rndB, key: key) else {
            throw .authenticationError
        }
        return rndA
    }

    private func encrypt(_ rndB: [UInt8], key: [UInt8]) throws(NTAG424Status) -> [UInt8] {
        guard let challenge = try? EV2CardAuthentication.challenge(rndB: rndB, key: key) else { throw .integrityError }
        return challenge
    }
}
