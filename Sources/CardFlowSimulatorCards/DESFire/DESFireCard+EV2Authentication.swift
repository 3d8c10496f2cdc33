import CardFlowCrypto

/// AuthenticateEV2First (71) and AuthenticateEV2NonFirst (77) with AES keys (spec §9; AN12343,
/// NT4H2421Gx §10.4): the EV2 secure channel over the shared ``EV2CardAuthentication``.
extension DESFireCard {
    /// First pass: First `KeyNo LenCap [PCDcap2]` (ends any session), NonFirst `KeyNo` (inside an
    /// EV2 session) → E(Kx, RndB) with `91 AF`.
    mutating func beginAuthenticationEV2(_ command: UInt8, _ data: [UInt8]) throws(DESFireCardStatus) -> DESFireReply {
        let first = command == 0x71
        if first {
            session = nil
            guard data.count >= 2, data[1] <= 6, data.count == 2 + Int(data[1]) else { throw .lengthError }
        } else {
            try requireLength(data, 1)
            guard session?.mode == .ev2 else { throw .authenticationError }
        }
        let keyNumber = data[0]
        let level = current
        guard Int(keyNumber) < level.keys.count else { throw .noSuchKey }
        let key = level.keys[Int(keyNumber)]
        guard key.type == .aes else { throw .authenticationError }
        var rndB = randomBytes(16)
        if let override = nextChallengeOverride, override.count == 16 { rndB = override }
        nextChallengeOverride = nil
        let challenge = try DESFireSecureMessaging.guarded { () throws(CardCryptoError) in
            try EV2CardAuthentication.challenge(rndB: rndB, key: key.bytes)
        }
        pendingAuthentication = DESFirePendingAuthentication(
            command: command, keyNumber: keyNumber, key: key, rndB: rndB, iv: [],
            pcdCapabilities: first ? Array(data[2...]) : [])
        return DESFireReply(data: challenge, protection: .none, expectsAdditionalFrame: true)
    }

    /// Second pass: E(Kx, RndA ‖ RndB') → First: E(Kx, TI ‖ RndA' ‖ PDcap2 ‖ PCDcap2), a new
    /// transaction at CmdCtr 0; NonFirst: E(Kx, RndA'), new session keys, TI and CmdCtr kept.
    mutating func completeAuthenticationEV2(_ pending: DESFirePendingAuthentication, token: [UInt8])
        throws(DESFireCardStatus)
        -> [UInt8]
    {
        guard token.count == 32 else { throw .lengthError }
        let key = pending.key.bytes
        guard let rndA = EV2CardAuthentication.readerRandom(token: token, rndB: pending.rndB, key: key) else {
            throw .authenticationError
        }
        let opened: (answer: [UInt8], session: EV2CardSession)
        if pending.command == 0x71 {
            let transactionIdentifier = randomBytes(4)
            opened = try DESFireSecureMessaging.guarded { () throws(CardCryptoError) in
                try EV2CardAuthentication.first(
                    keyNumber: pending.keyNumber, key: key, rndA: rndA, rndB: pending.rndB,
                    transactionIdentifier: transactionIdentifier, pcdCapabilities: pending.pcdCapabilities)
            }
        } else {
            guard let current = session?.ev2 else { throw .authenticationError }
            opened = try DESFireSecureMessaging.guarded { () throws(CardCryptoError) in
                try EV2CardAuthentication.nonFirst(
                    keyNumber: pending.keyNumber, key: key, rndA: rndA, rndB: pending.rndB, continuing: current)
            }
        }
        let cipher = try DESFireSecureMessaging.guarded { () throws(CardCryptoError) in
            try AES128Cipher(key: opened.session.encryptionKey)
        }
        session = DESFireSession(
            mode: .ev2, keyNumber: pending.keyNumber, cipher: cipher, iv: [UInt8](repeating: 0, count: 16),
            ev2: opened.session)
        return opened.answer
    }
}
