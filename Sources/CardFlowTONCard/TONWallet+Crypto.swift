import CardFlow

extension TONWallet {
    /// S_T, AI, [SN when no key is current,] GS, VERIFY_PIN (protected). Signing needs a
    /// verified PIN; 10 wrong PINs in a row lock the keys (6F08).
    public func verifyPin(_ pin: TONPin) async throws {
        try await selectAndCheck(.verifyPin)
        if await hmacKeys.currentSerialNumber == nil { try await reselectKey() }
        try await sendProtected(.verifyPin, payload: pin.bytes)
    }

    /// S_T, AI, `B0 A7 00 00 20`: the Ed25519 public key of `m/44'/396'/0'/0'/0'`. - Throws: 40013.
    public func publicKeyForDefaultPath() async throws -> [UInt8] {
        try await selectAndCheck(.getPublicKeyForDefaultPath)
        return try Self.publicKey(try await exchange(TONCommands.getPublicKeyForDefaultPath))
    }

    /// S_T, AI, GET_PUBLIC_KEY: the Ed25519 public key of `m/44'/396'/0'/0'/<index>'`. - Throws: 40013.
    public func publicKey(hdIndex: TONHDIndex) async throws -> [UInt8] {
        try await selectAndCheck(.getPublicKey)
        return try Self.publicKey(try await exchange(try TONCommands.getPublicKey(hdIndex)))
    }

    /// S_T, AI, SN, GS, SIGN_SHORT_MESSAGE_WITH_DEFAULT_PATH: a 64-byte Ed25519 signature of
    /// `message` (1...189 bytes, else 10009). The PIN must have been verified.
    public func signForDefaultPath(_ message: [UInt8]) async throws -> [UInt8] {
        try TONMessage.check(message, withIndex: false)
        try await selectAndCheck(.signShortMessageForDefaultPath)
        try await reselectKey()
        return try await signDefault(message)
    }

    /// S_T, AI, SN, GS, SIGN_SHORT_MESSAGE: a signature with the key of `hdIndex` (message
    /// 1...178 bytes, else 10010).
    public func sign(_ message: [UInt8], hdIndex: TONHDIndex) async throws -> [UInt8] {
        try TONMessage.check(message, withIndex: true)
        try await selectAndCheck(.signShortMessage)
        try await reselectKey()
        return try await signIndexed(message, hdIndex: hdIndex)
    }

    /// S_T, AI, SN, GS, VERIFY_PIN, GS, SIGN_SHORT_MESSAGE_WITH_DEFAULT_PATH.
    public func verifyPinAndSignForDefaultPath(_ message: [UInt8], pin: TONPin) async throws -> [UInt8] {
        try TONMessage.check(message, withIndex: false)
        try await selectAndCheck(.verifyPin)
        try await reselectKey()
        try await sendProtected(.verifyPin, payload: pin.bytes)
        return try await signDefault(message)
    }

    /// S_T, AI, SN, GS, VERIFY_PIN, GS, SIGN_SHORT_MESSAGE.
    public func verifyPinAndSign(_ message: [UInt8], hdIndex: TONHDIndex, pin: TONPin) async throws -> [UInt8] {
        try TONMessage.check(message, withIndex: true)
        try await selectAndCheck(.verifyPin)
        try await reselectKey()
        try await sendProtected(.verifyPin, payload: pin.bytes)
        return try await signIndexed(message, hdIndex: hdIndex)
    }

    private func signDefault(_ message: [UInt8]) async throws -> [UInt8] {
        let payload = [0x00, UInt8(message.count)] + message
        return try Self.signature(try await sendProtected(.signShortMessageForDefaultPath, payload: payload, le: 0x40))
    }

    private func signIndexed(_ message: [UInt8], hdIndex: TONHDIndex) async throws -> [UInt8] {
        let payload = [0x00, UInt8(message.count)] + message + [UInt8(hdIndex.bytes.count)] + hdIndex.bytes
        return try Self.signature(try await sendProtected(.signShortMessage, payload: payload, le: 0x40))
    }

    static func publicKey(_ answer: [UInt8]) throws -> [UInt8] {
        guard answer.count == 32 else { throw TONError.library(code: 40013) }
        return answer
    }

    static func signature(_ answer: [UInt8]) throws -> [UInt8] {
        guard answer.count == 64 else { throw TONError.library(code: 40012) }
        return answer
    }
}
