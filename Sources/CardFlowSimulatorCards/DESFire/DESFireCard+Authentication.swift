import CardFlowCrypto

/// The three-pass authentications 0x0A (legacy), 0x1A (ISO) and 0xAA (AES), spec §4.2.
extension DESFireCard {
    /// First pass: `<cmd> KeyNo` → `ek(RndB)` with `91 AF`. Any previous session ends here.
    mutating func beginAuthentication(_ command: UInt8, _ data: [UInt8]) throws(DESFireCardStatus) -> DESFireReply {
        session = nil
        try requireLength(data, 1)
        let keyNumber = data[0]
        let level = current
        guard Int(keyNumber) < level.keys.count else { throw .noSuchKey }
        let key = level.keys[Int(keyNumber)]
        switch (command, key.type) {
        case (0xAA, .aes), (0x1A, .des), (0x1A, .threeKeyTripleDES), (0x0A, .des): break
        default: throw .authenticationError
        }
        let length = key.type.challengeLength
        var rndB = randomBytes(length)
        if let override = nextChallengeOverride, override.count == length { rndB = override }
        nextChallengeOverride = nil
        let cipher = try DESFireSecureMessaging.guarded { () throws(CardCryptoError) in try key.cipher() }
        let zero = [UInt8](repeating: 0, count: cipher.blockSize)
        let encrypted = try DESFireSecureMessaging.guarded { () throws(CardCryptoError) in
            try cipher.encryptCBC(rndB, iv: zero)
        }
        pendingAuthentication = DESFirePendingAuthentication(
            command: command, keyNumber: keyNumber, key: key, rndB: rndB,
            iv: command == 0x0A ? zero : Array(encrypted.suffix(cipher.blockSize)))
        return DESFireReply(data: encrypted, protection: .none, expectsAdditionalFrame: true)
    }

    /// Second pass: `AF ek(RndA ‖ RndB')` → `ek(RndA')` with `91 00`; opens the session.
    mutating func completeAuthentication(
        _ pending: DESFirePendingAuthentication,
        token: [UInt8]
    ) throws(DESFireCardStatus) -> [UInt8] {
        if pending.command == 0x71 || pending.command == 0x77 {
            return try completeAuthenticationEV2(pending, token: token)
        }
        let length = pending.key.type.challengeLength
        guard token.count == 2 * length else { throw .lengthError }
        let key = pending.key
        let cipher = try DESFireSecureMessaging.guarded { () throws(CardCryptoError) in try key.cipher() }
        let zero = [UInt8](repeating: 0, count: cipher.blockSize)
        let legacy = pending.command == 0x0A
        let plain = try DESFireSecureMessaging.guarded { () throws(CardCryptoError) in
            if legacy { return try cipher.legacySendModeRecover(token, iv: zero) }
            return try cipher.decryptCBC(token, iv: pending.iv)
        }
        let rndA = Array(plain.prefix(length))
        guard Array(plain.suffix(length)) == ByteRotation.rotatedLeft(pending.rndB) else { throw .authenticationError }
        let answerIV = legacy ? zero : Array(token.suffix(cipher.blockSize))
        let answer = try DESFireSecureMessaging.guarded { () throws(CardCryptoError) in
            try cipher.encryptCBC(ByteRotation.rotatedLeft(rndA), iv: answerIV)
        }
        let sessionKey = try DESFireSecureMessaging.guarded { () throws(CardCryptoError) in
            try key.sessionKey(rndA: rndA, rndB: pending.rndB)
        }
        let sessionCipher: any BlockCipher = try DESFireSecureMessaging.guarded { () throws(CardCryptoError) in
            if key.type == .aes { return try AES128Cipher(key: sessionKey) as any BlockCipher }
            return try TripleDESCipher(key: sessionKey) as any BlockCipher
        }
        session = DESFireSession(
            mode: legacy ? .legacy : .ev1, keyNumber: pending.keyNumber, cipher: sessionCipher,
            iv: [UInt8](repeating: 0, count: sessionCipher.blockSize))
        return answer
    }
}
