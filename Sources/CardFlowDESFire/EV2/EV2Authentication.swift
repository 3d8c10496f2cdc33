import CardFlow
import CardFlowCrypto

/// AuthenticateEV2First and AuthenticateEV2NonFirst (NT4H2421Gx §9.1.5–9.1.6, AN12196 §5.6, §5.14)
/// as a pure state machine: it computes the commands and checks the card's answers; the caller
/// moves the bytes.
///
/// ```
/// PCD → PICC  90 71 00 00 Lc  KeyNo LenCap PCDcap2   00      (NonFirst: 90 77 00 00 01 KeyNo 00)
/// PICC → PCD  E(Kx, RndB)                             91 AF
/// PCD → PICC  90 AF 00 00 20  E(Kx, RndA ‖ RndB')    00      RndB' = RndB rotated left by one byte
/// PICC → PCD  E(Kx, TI ‖ RndA' ‖ PDcap2 ‖ PCDcap2)    91 00   (NonFirst: E(Kx, RndA'))
/// ```
///
/// Every cryptogram is AES-CBC from a zero IV. The card's RndA' must be our RndA rotated left by one
/// byte, or the card does not know the key. First opens a transaction (new TI, CmdCtr `0000`);
/// NonFirst keeps the TI and counter of the session it continues and only replaces the session keys.
///
/// ```swift
/// let part1 = try EV2Authentication.first(keyNumber: 0, key: key)
/// let part2 = try part1.respond(to: try await channel.transmit(part1.command))
/// var session = try part2.finish(with: try await channel.transmit(part2.command))
/// // later, the same transaction with another key:
/// let again = try EV2Authentication.nonFirst(keyNumber: 3, key: key3, continuing: session)
/// ```
public struct EV2Authentication: Sendable {
    /// Which authentication this is.
    public enum Kind: Sendable {
        /// AuthenticateEV2First, announcing `pcdCapabilities` (PCDcap2, at most 6 bytes).
        case first(pcdCapabilities: [UInt8])
        /// AuthenticateEV2NonFirst inside the transaction of `session`.
        case nonFirst(continuing: EV2Session)

        var instruction: EV2Instruction {
            if case .first = self { return .authenticateEV2First }
            return .authenticateEV2NonFirst
        }

        /// The length of the card's last answer, and where RndA' sits in it once deciphered.
        var finalAnswerLayout: (length: Int, rndAOffset: Int) {
            if case .first = self { return (32, 4) }
            return (16, 0)
        }
    }

    /// The key number authenticated with.
    public let keyNumber: UInt8
    /// First or NonFirst.
    public let kind: Kind
    let key: [UInt8]
    let rndA: [UInt8]

    /// AuthenticateEV2First with AES key `key` stored as key `keyNumber`.
    ///
    /// - Parameters:
    ///   - key: the AES key.
    ///   - keyNumber: the number the key is stored under on the card.
    ///   - rndA: the reader's 16-byte random number; fresh random bytes unless a test
    ///     replays a published exchange.
    ///   - pcdCapabilities: PCDcap2, at most 6 bytes.
    /// - Throws: ``EV2Error/invalidArgument(_:)`` for a key that is not AES, a RndA that is not 16
    ///   bytes, or more than 6 bytes of PCDcap2.
    public static func first(
        keyNumber: UInt8, key: DESFireKey, rndA: [UInt8] = SecureRandom.bytes(count: 16),
        pcdCapabilities: [UInt8] = []
    ) throws(EV2Error) -> EV2Authentication {
        guard pcdCapabilities.count <= 6 else {
            throw .invalidArgument("PCDcap2 has at most 6 bytes, not \(pcdCapabilities.count)")
        }
        return try EV2Authentication(
            keyNumber: keyNumber, key: key, rndA: rndA, kind: .first(pcdCapabilities: pcdCapabilities))
    }

    /// AuthenticateEV2NonFirst with AES key `key` (key `keyNumber`) inside the transaction of `session`.
    ///
    /// - Throws: ``EV2Error/invalidArgument(_:)`` for a key that is not AES or a RndA that is not 16 bytes.
    public static func nonFirst(
        keyNumber: UInt8, key: DESFireKey, rndA: [UInt8] = SecureRandom.bytes(count: 16),
        continuing session: EV2Session
    ) throws(EV2Error) -> EV2Authentication {
        try EV2Authentication(keyNumber: keyNumber, key: key, rndA: rndA, kind: .nonFirst(continuing: session))
    }

    private init(keyNumber: UInt8, key: DESFireKey, rndA: [UInt8], kind: Kind) throws(EV2Error) {
        guard key.type == .aes else { throw .invalidArgument("EV2 secure messaging needs an AES key, not \(key.type)") }
        guard rndA.count == 16 else { throw .invalidArgument("RndA has 16 bytes, not \(rndA.count)") }
        self.keyNumber = keyNumber
        self.key = key.bytes
        self.rndA = rndA
        self.kind = kind
        let data: [UInt8] =
            switch kind {
            case .first(let capabilities):
                // At most 6 bytes: first(keyNumber:key:rndA:pcdCapabilities:) refuses more.
                [keyNumber, UInt8(truncatingIfNeeded: capabilities.count)] + capabilities
            case .nonFirst: [keyNumber]
            }
        self.command = try nativeCommandAPDU(kind.instruction, data)
    }

    /// `71` for First, `77` for NonFirst.
    public var instruction: EV2Instruction { kind.instruction }

    /// Part 1: `90 71 00 00 Lc KeyNo LenCap PCDcap2 00`, or `90 77 00 00 01 KeyNo 00`.
    public let command: CommandAPDU

    /// Takes the card's challenge `E(Kx, RndB)` (`91 AF`) and computes part 2.
    ///
    /// - Throws: ``EV2Error/cardStatus(_:instruction:)`` when the card refuses (`40` no such key,
    ///   `AE` authentication error, `9D` not allowed), ``EV2Error/unexpectedStatusWord(_:instruction:)``
    ///   for a non-native answer, ``EV2Error/malformedResponse(instruction:statusWord:reason:)`` for a
    ///   challenge that is not one block or not followed by `91 AF`.
    public func respond(to challenge: ResponseAPDU) throws(EV2Error) -> EV2AuthenticationPart2 {
        let statusWord = challenge.statusWord
        guard challenge.sw1 == 0x91 else { throw .unexpectedStatusWord(statusWord, instruction: instruction) }
        switch challenge.sw2 {
        case 0xAF: break
        case 0x00:
            throw .malformedResponse(
                instruction: instruction, statusWord: statusWord,
                reason: "the card ended the authentication without a challenge")
        default: throw .cardStatus(DESFireStatus(code: challenge.sw2), instruction: instruction)
        }
        guard challenge.data.count == 16 else {
            throw .malformedResponse(
                instruction: instruction, statusWord: statusWord,
                reason: "challenge of \(challenge.data.count) bytes, expected 16")
        }
        let (key, rndA, data) = (self.key, self.rndA, challenge.data)
        let zero = [UInt8](repeating: 0, count: 16)
        let (rndB, token) = try ev2Crypto { () throws(CardCryptoError) -> ([UInt8], [UInt8]) in
            let cipher = try AES128Cipher(key: key)
            let rndB = try cipher.decryptCBC(data, iv: zero)
            return (rndB, try cipher.encryptCBC(rndA + ByteRotation.rotatedLeft(rndB), iv: zero))
        }
        return EV2AuthenticationPart2(
            authentication: self, rndB: rndB,
            command: try nativeCommandAPDU(.additionalFrame, token))
    }
}

/// The second half of an EV2 authentication: the reader's proof, then the card's.
///
/// ```swift
/// let part2 = try part1.respond(to: challenge)
/// let session = try part2.finish(with: try await channel.transmit(part2.command))
/// ```
public struct EV2AuthenticationPart2: Sendable {
    let authentication: EV2Authentication
    let rndB: [UInt8]

    /// Part 2: `90 AF 00 00 20 E(Kx, RndA ‖ RndB') 00`.
    public let command: CommandAPDU

    /// Checks the card's answer and opens the session.
    ///
    /// First: the answer deciphers to `TI ‖ RndA' ‖ PDcap2 ‖ PCDcap2` and the session starts at
    /// CmdCtr `0000`. NonFirst: it deciphers to `RndA'` and the continued session keeps its TI and
    /// counter. Both derive new ``EV2SessionKeys`` from RndA and RndB.
    ///
    /// - Throws: ``EV2Error/authenticationFailed(keyNumber:instruction:statusWord:)`` when RndA' is
    ///   not RndA rotated left, ``EV2Error/cardStatus(_:instruction:)`` when the card refuses (`AE`:
    ///   it did not accept our RndB'), ``EV2Error/malformedResponse(instruction:statusWord:reason:)``
    ///   for an answer of the wrong length.
    public func finish(with response: ResponseAPDU) throws(EV2Error) -> EV2Session {
        let instruction = authentication.instruction
        try EV2Session.requireSuccess(response, to: instruction)
        let (expectedLength, rndAOffset) = authentication.kind.finalAnswerLayout
        guard response.data.count == expectedLength else {
            throw .malformedResponse(
                instruction: instruction, statusWord: response.statusWord,
                reason: "answer of \(response.data.count) bytes, expected \(expectedLength)")
        }
        let (key, data) = (authentication.key, response.data)
        let plaintext = try ev2Crypto { () throws(CardCryptoError) in
            try AES128Cipher(key: key).decryptCBC(data, iv: [UInt8](repeating: 0, count: 16))
        }
        let rotated = Array(plaintext[rndAOffset..<rndAOffset + 16])
        guard constantTimeEqual(rotated, ByteRotation.rotatedLeft(authentication.rndA)) else {
            throw .authenticationFailed(
                keyNumber: authentication.keyNumber, instruction: instruction,
                statusWord: response.statusWord)
        }
        let keys = try EV2SessionKeys(key: key, rndA: authentication.rndA, rndB: rndB)
        switch authentication.kind {
        case .first:
            return try EV2Session(
                keyNumber: authentication.keyNumber, keys: keys,
                transactionIdentifier: Array(plaintext[0..<4]), commandCounter: 0,
                cardCapabilities: Array(plaintext[20..<26]), readerCapabilities: Array(plaintext[26..<32]))
        case .nonFirst(let session):
            return session.replacingKeys(with: keys, keyNumber: authentication.keyNumber)
        }
    }
}
