import CardFlowCrypto

@testable import CardFlowSimulator
@testable import CardFlowSimulatorCards

/// Test-side DESFire host: ISO wrapping, three-pass authentication and secure messaging computed
/// with CardFlowCrypto from the specification, to drive ``DESFireCard`` with raw APDUs.

/// `90 INS 00 00 [Lc data] 00`.
func desfireAPDU(_ ins: UInt8, _ data: [UInt8] = []) -> [UInt8] {
    data.isEmpty ? [0x90, ins, 0x00, 0x00, 0x00] : [0x90, ins, 0x00, 0x00, UInt8(data.count)] + data + [0x00]
}

/// One response frame split into data and the DESFire status (SW2; 0xFF when SW1 is not 0x91).
struct DESFireAnswer: Equatable, CustomStringConvertible {
    var data: [UInt8]
    var status: UInt8
    var description: String { "\(hexString(data)) / \(String(status, radix: 16))" }
}

extension DESFireCard {
    /// Sends one frame.
    mutating func send(_ ins: UInt8, _ data: [UInt8] = []) -> DESFireAnswer {
        let response = process(desfireAPDU(ins, data))
        guard response.count >= 2, response[response.count - 2] == 0x91 else {
            return DESFireAnswer(data: response, status: 0xFF)
        }
        return DESFireAnswer(data: Array(response.dropLast(2)), status: response[response.count - 1])
    }

    /// Sends a command and collects `91 AF` response frames with `90 AF 00 00 00`.
    mutating func exchange(_ ins: UInt8, _ data: [UInt8] = []) -> DESFireAnswer {
        var answer = send(ins, data)
        var collected = answer.data
        var frames = 0
        while answer.status == 0xAF, frames < 100 {
            answer = send(0xAF)
            collected += answer.data
            frames += 1
        }
        return DESFireAnswer(data: collected, status: answer.status)
    }

    /// Sends a long native command split into frames of at most `chunk` data bytes.
    mutating func sendChained(_ ins: UInt8, _ data: [UInt8], chunk: Int = 54) -> DESFireAnswer {
        var answer = send(ins, Array(data.prefix(chunk)))
        var rest = data.dropFirst(chunk)
        while answer.status == 0xAF, !rest.isEmpty {
            answer = send(0xAF, Array(rest.prefix(chunk)))
            rest = rest.dropFirst(chunk)
        }
        return answer
    }
}

/// Host-side key description.
struct HostKey {
    var bytes: [UInt8]
    var isAES: Bool

    static func aes(_ bytes: [UInt8]) -> HostKey { HostKey(bytes: bytes, isAES: true) }
    static func des(_ bytes: [UInt8]) -> HostKey { HostKey(bytes: bytes, isAES: false) }

    var rndLength: Int { isAES || bytes.count == 24 ? 16 : 8 }

    func cipher() throws -> any BlockCipher {
        if isAES { return try AES128Cipher(key: bytes) }
        return try TripleDESCipher(key: bytes)
    }

    func sessionKey(rndA: [UInt8], rndB: [UInt8]) throws -> [UInt8] {
        if isAES { return try DESFireSessionKey.aes(rndA: rndA, rndB: rndB) }
        if bytes.count == 24 { return try DESFireSessionKey.threeKeyTripleDES(rndA: rndA, rndB: rndB) }
        let singleDES = bytes.count == 8 || (0..<8).allSatisfy { bytes[$0] & 0xFE == bytes[$0 + 8] & 0xFE }
        if singleDES { return try DESFireSessionKey.des(rndA: rndA, rndB: rndB) }
        return try DESFireSessionKey.twoKeyTripleDES(rndA: rndA, rndB: rndB)
    }
}

/// The messages of one authentication, for comparison with published vectors.
struct HostAuthenticationTrace {
    var cardChallenge: [UInt8] = []
    var token: [UInt8] = []
    var cardAnswer: [UInt8] = []
    var sessionKey: [UInt8] = []
    var failureStatus: UInt8?
}

/// A host-side session: EV1 (IV chained, CMAC, CRC32) or legacy (IV 0, MAC, CRC16).
/// A class so that Swift Testing's `#expect` / `#require` can call its IV-advancing methods.
final class HostSession {
    let legacy: Bool
    let cipher: any BlockCipher
    var iv: [UInt8]

    init(legacy: Bool, cipher: any BlockCipher, iv: [UInt8]) {
        self.legacy = legacy
        self.cipher = cipher
        self.iv = iv
    }
    var blockSize: Int { cipher.blockSize }
    var zero: [UInt8] { [UInt8](repeating: 0, count: blockSize) }

    /// Runs the three-pass authentication against `card` with a fixed RndB (via the card's
    /// override) and RndA.
    static func authenticate(
        _ card: inout DESFireCard, command: UInt8, keyNumber: UInt8, key: HostKey,
        rndA: [UInt8], rndB: [UInt8]? = nil
    ) throws -> (HostSession?, HostAuthenticationTrace) {
        var trace = HostAuthenticationTrace()
        card.nextChallengeOverride = rndB
        let first = card.send(command, [keyNumber])
        guard first.status == 0xAF else {
            trace.failureStatus = first.status
            return (nil, trace)
        }
        trace.cardChallenge = first.data
        let cipher = try key.cipher()
        let zero = [UInt8](repeating: 0, count: cipher.blockSize)
        let legacy = command == 0x0A
        let receivedB = try cipher.decryptCBC(first.data, iv: zero)
        let plain = rndA + ByteRotation.rotatedLeft(receivedB)
        let token =
            try legacy
            ? cipher.legacySendModeDecipher(plain, iv: zero)
            : cipher.encryptCBC(plain, iv: Array(first.data.suffix(cipher.blockSize)))
        trace.token = token
        let second = card.send(0xAF, token)
        guard second.status == 0x00 else {
            trace.failureStatus = second.status
            return (nil, trace)
        }
        trace.cardAnswer = second.data
        let rotatedA = try cipher.decryptCBC(second.data, iv: legacy ? zero : Array(token.suffix(cipher.blockSize)))
        guard rotatedA == ByteRotation.rotatedLeft(rndA) else {
            trace.failureStatus = 0x01
            return (nil, trace)
        }
        let sessionKey = try key.sessionKey(rndA: rndA, rndB: receivedB)
        trace.sessionKey = sessionKey
        let sessionCipher: any BlockCipher
        if key.isAES {
            sessionCipher = try AES128Cipher(key: sessionKey)
        } else {
            sessionCipher = try TripleDESCipher(key: sessionKey)
        }
        return (
            HostSession(
                legacy: legacy, cipher: sessionCipher, iv: [UInt8](repeating: 0, count: sessionCipher.blockSize)), trace
        )
    }

    /// A plain command: EV1 advances the IV by its CMAC; returns the (unsent) CMAC.
    @discardableResult
    func commandCMAC(_ message: [UInt8]) throws -> [UInt8] {
        guard !legacy else { return [] }
        iv = try BlockCipherCMAC.mac(message, cipher: cipher, iv: iv)
        return iv
    }

    /// Checks and strips the response CMAC (EV1) of a successful answer; `nil` if it is wrong.
    func responseData(_ answer: DESFireAnswer) throws -> [UInt8]? {
        guard answer.status == 0x00 else { return nil }
        guard !legacy else { return answer.data }
        guard answer.data.count >= 8 else { return nil }
        let data = Array(answer.data.dropLast(8))
        let mac = try BlockCipherCMAC.mac(data + [0x00], cipher: cipher, iv: iv)
        guard Array(mac.prefix(8)) == Array(answer.data.suffix(8)) else { return nil }
        iv = mac
        return data
    }

    /// Enciphered command part: EV1 `E(data ‖ CRC32(header ‖ data) ‖ 0…)` from the IV;
    /// legacy `send-decipher(data ‖ CRC16(data) ‖ 0…)` from zero.
    func encipher(header: [UInt8], data: [UInt8]) throws -> [UInt8] {
        if legacy {
            let plain = BlockPadding.zeroPadded(data + CRC16A.bytes(data), blockSize: blockSize)
            return try cipher.legacySendModeDecipher(plain, iv: zero)
        }
        let plain = BlockPadding.zeroPadded(data + DESFireCRC32.bytes(header + data), blockSize: blockSize)
        let encrypted = try cipher.encryptCBC(plain, iv: iv)
        iv = Array(encrypted.suffix(blockSize))
        return encrypted
    }

    /// Enciphers an already assembled cryptogram (ChangeKey) without adding a CRC.
    func encipherRaw(_ plain: [UInt8]) throws -> [UInt8] {
        let padded = BlockPadding.zeroPadded(plain, blockSize: blockSize)
        if legacy { return try cipher.legacySendModeDecipher(padded, iv: zero) }
        let encrypted = try cipher.encryptCBC(padded, iv: iv)
        iv = Array(encrypted.suffix(blockSize))
        return encrypted
    }

    /// MACed command data: EV1 `data ‖ CMAC(header ‖ data)[0..7]`; legacy `data ‖ MAC(data)`.
    func macData(header: [UInt8], data: [UInt8]) throws -> [UInt8] {
        if legacy { return data + (try legacyMAC(data)) }
        iv = try BlockCipherCMAC.mac(header + data, cipher: cipher, iv: iv)
        return data + iv.prefix(8)
    }

    func legacyMAC(_ data: [UInt8]) throws -> [UInt8] {
        let encrypted = try cipher.encryptCBC(BlockPadding.zeroPadded(data, blockSize: blockSize), iv: zero)
        return Array(encrypted.suffix(blockSize).prefix(4))
    }

    /// Deciphers an enciphered response of `length` data bytes and checks its CRC; `nil` on mismatch.
    func decipherResponse(_ answer: DESFireAnswer, length: Int) throws -> [UInt8]? {
        guard answer.status == 0x00, answer.data.count % blockSize == 0, !answer.data.isEmpty else { return nil }
        if legacy {
            let plain = try cipher.decryptCBC(answer.data, iv: zero)
            let data = Array(plain.prefix(length))
            guard plain.count >= length + 2, Array(plain[length..<length + 2]) == CRC16A.bytes(data) else { return nil }
            return data
        }
        let plain = try cipher.decryptCBC(answer.data, iv: iv)
        iv = Array(answer.data.suffix(blockSize))
        let data = Array(plain.prefix(length))
        guard plain.count >= length + 4, Array(plain[length..<length + 4]) == DESFireCRC32.bytes(data + [0x00]),
            plain[(length + 4)...].allSatisfy({ $0 == 0 })
        else { return nil }
        return data
    }

    /// The ChangeKey cryptogram plaintext (spec §4.7) before padding.
    func changeKeyPlain(keyNumberByte: UInt8, newKey: [UInt8], oldKey: [UInt8]?, aesVersion: UInt8?) -> [UInt8] {
        var body = oldKey.map { old in zip(newKey, old).map { $0 ^ $1 } } ?? newKey
        if let aesVersion { body.append(aesVersion) }
        var plain = body
        if legacy {
            plain += CRC16A.bytes(body)
            if oldKey != nil { plain += CRC16A.bytes(newKey) }
        } else {
            plain += DESFireCRC32.bytes([0xC4, keyNumberByte] + body)
            if oldKey != nil { plain += DESFireCRC32.bytes(newKey) }
        }
        return plain
    }

    /// ChangeKey: returns the full native data `KeyNo ‖ cryptogram`.
    func changeKeyData(
        keyNumberByte: UInt8, newKey: [UInt8], oldKey: [UInt8]? = nil,
        aesVersion: UInt8? = nil
    ) throws -> [UInt8] {
        [keyNumberByte]
            + (try encipherRaw(
                changeKeyPlain(
                    keyNumberByte: keyNumberByte, newKey: newKey,
                    oldKey: oldKey, aesVersion: aesVersion)))
    }
}

/// Hex helper shared by the DESFire tests.
func h(_ text: String) -> [UInt8] { bytes(text) }
