import CardFlow
import CardFlowCrypto

extension DESFireClient {
    /// Three-pass authentication with key `keyNumber` of the selected application (§4.2):
    /// `0A` legacy, `1A` ISO or `AA` AES, chosen from the key type unless `method` says otherwise;
    /// `71` (``authenticateEV2First(keyNumber:key:)``) with ``DESFireAuthenticationMethod/ev2``.
    ///
    /// Any open session ends first. On success the session key and a zero IV are set.
    ///
    /// - Throws: ``DESFireError/cardStatus(_:command:)`` (`40` no such key, `AE` wrong key or type),
    ///   ``DESFireError/authenticationFailed(keyNumber:reason:)`` when the card's RndA' is wrong.
    public func authenticate(keyNumber: UInt8, key: DESFireKey, method: DESFireAuthenticationMethod = .automatic)
        async throws
    {
        try checkAuthenticationKeyNumber(keyNumber)
        let command = try method.command(for: key)
        if command == .authenticateEV2First {
            try await authenticateEV2First(keyNumber: keyNumber, key: key)
            return
        }
        session = nil
        let cipher = try key.cipher()
        let length = key.type.randomLength
        let zero = [UInt8](repeating: 0, count: cipher.blockSize)

        let first = try await transmitFrame(command.rawValue, [keyNumber], command: command)
        guard first.status == 0xAF else {
            try fail(first.status, command)
            throw DESFireError.malformedResponse(
                command: command, reason: "card accepted the first step without a challenge")
        }
        guard first.data.count == length else {
            throw DESFireError.malformedResponse(
                command: command, reason: "challenge of \(first.data.count) bytes, expected \(length)")
        }
        let rndA = randomBytes(length)
        guard rndA.count == length else {
            throw DESFireError.invalidArgument("random source gave \(rndA.count) bytes, expected \(length)")
        }
        let legacy = command == .authenticateLegacy
        let rndB: [UInt8]
        let token: [UInt8]
        var iv: [UInt8] = zero
        if legacy {
            rndB = try crypto { () throws(CardCryptoError) in try cipher.decryptCBC(first.data, iv: zero) }
            let plain = rndA + ByteRotation.rotatedLeft(rndB)
            token = try crypto { () throws(CardCryptoError) in try cipher.legacySendModeDecipher(plain, iv: zero) }
        } else {
            rndB = try crypto { () throws(CardCryptoError) in try cipher.decryptCBC(first.data, iv: zero) }
            iv = Array(first.data.suffix(cipher.blockSize))
            let plain = rndA + ByteRotation.rotatedLeft(rndB)
            let ivNow = iv
            token = try crypto { () throws(CardCryptoError) in try cipher.encryptCBC(plain, iv: ivNow) }
            iv = Array(token.suffix(cipher.blockSize))
        }

        let second = try await transmitFrame(0xAF, token, command: command)
        try fail(second.status, command)
        guard second.data.count == length else {
            throw DESFireError.malformedResponse(
                command: command, reason: "answer of \(second.data.count) bytes, expected \(length)")
        }
        let ivNow = legacy ? zero : iv
        let rndARotated = try crypto { () throws(CardCryptoError) in try cipher.decryptCBC(second.data, iv: ivNow) }
        guard rndARotated == ByteRotation.rotatedLeft(rndA) else {
            throw DESFireError.authenticationFailed(keyNumber: keyNumber, reason: "the card's RndA' does not match")
        }

        let sessionKey: [UInt8] = try crypto { () throws(CardCryptoError) in
            switch key.type {
            case .aes: try DESFireSessionKey.aes(rndA: rndA, rndB: rndB)
            case .threeKey3DES: try DESFireSessionKey.threeKeyTripleDES(rndA: rndA, rndB: rndB)
            case .des, .twoKey3DES:
                key.actsAsDES
                    ? try DESFireSessionKey.des(rndA: rndA, rndB: rndB)
                    : try DESFireSessionKey.twoKeyTripleDES(rndA: rndA, rndB: rndB)
            }
        }
        let sessionCipher: any BlockCipher = try crypto { () throws(CardCryptoError) -> any BlockCipher in
            key.type == .aes ? try AES128Cipher(key: sessionKey) : try TripleDESCipher(key: sessionKey)
        }
        session = DESFireSecureSession(
            keyNumber: keyNumber, keyType: key.type, flavour: legacy ? .legacy : .ev1,
            cipher: sessionCipher, iv: zero)
        lastAuthentication = (keyNumber, key, method)
    }

    /// The session key of the open session (tests compare it with published vectors).
    var sessionKeyCipher: (any BlockCipher)? { session?.cipher }
    var sessionIV: [UInt8]? { session?.iv }
}

extension DESFireClient {
    /// Installs a session from known values (published vectors start from a given session key and IV).
    func installSession(
        keyNumber: UInt8, keyType: DESFireKeyType, sessionKey: [UInt8], iv: [UInt8]? = nil,
        legacy: Bool = false, application: DESFireApplicationID? = nil
    ) throws {
        let cipher: any BlockCipher =
            keyType == .aes ? try AES128Cipher(key: sessionKey) : try TripleDESCipher(key: sessionKey)
        session = DESFireSecureSession(
            keyNumber: keyNumber, keyType: keyType, flavour: legacy ? .legacy : .ev1, cipher: cipher,
            iv: iv ?? [UInt8](repeating: 0, count: cipher.blockSize))
        if let application { selectedApplication = application }
    }

    /// Caches file settings without asking the card (tests).
    func cacheFileSettings(_ settings: DESFireFileSettings, file: UInt8) {
        fileSettingsCache[file] = settings
    }
}
