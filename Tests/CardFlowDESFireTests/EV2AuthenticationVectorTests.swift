import CardFlow
import CardFlowCrypto
import Testing

@testable import CardFlowDESFire

/// AuthenticateEV2First and AuthenticateEV2NonFirst replayed byte for byte from NXP AN12196
/// "NTAG 424 DNA and NTAG 424 DNA TagTamper features and hints". Table numbers are rev. 2.0's,
/// sections as rev. 2.0 / rev. 1.x number them (rev. 2.0 moved chapter 1 to the back).
@Suite("EV2 authentication vectors (AN12196)")
struct EV2AuthenticationVectorTests {
    static let zeroKey = try! DESFireKey(type: .aes, bytes: [UInt8](repeating: 0, count: 16))

    struct Vector: Sendable, CustomStringConvertible {
        let name: String
        let keyNumber: UInt8
        let rndA: String
        let challenge: String
        let rndB: String
        let part2: String
        let answer: String
        let sv1: String
        let sv2: String?
        let encryptionKey: String
        let macKey: String
        var description: String { name }
    }

    /// AuthenticateEV2First vectors. Their part-1 commands are checked for the layout of NT4H2421Gx
    /// §10.4.1 (KeyNo, LenCap 00); Table 14's published C-APDU is checked on its own below.
    static let first: [Vector] = [
        // AN12196 rev. 2.0 §5.6 Table 14 (rev. 1.x §6.6), key 0x00 = 16 × 00, steps 7–28. Also in
        // icedevml/nfc-ev2-crypto test_ev2.py (test_auth1) and MxAshUp/ntag424-js
        // test/authentication.test.js (SV1, SV2).
        Vector(
            name: "Table 14: key 0", keyNumber: 0, rndA: "13C5DB8A5930439FC3DEF9A4C675360F",
            challenge: "A04C124213C186F22399D33AC2A30215 91AF", rndB: "B9E2FC789B64BF237CCCAA20EC7E6E48",
            part2: "90AF000020 35C3E05A752E0144BAC0DE51C1F22C56B34408A23D8AEA266CAB947EA8E0118D 00",
            answer: "3FA64DB5446D1F34CD6EA311167F5E4985B89690C04A05F17FA7AB2F08120663 9100",
            sv1: "A55A00010080 13C5 6268A548D8FB BF237CCCAA20EC7E6E48 C3DEF9A4C675360F",
            sv2: "5AA500010080 13C5 6268A548D8FB BF237CCCAA20EC7E6E48 C3DEF9A4C675360F",
            encryptionKey: "1309C877509E5A215007FF0ED19CA564", macKey: "4C6626F5E72EA694202139295C7A7FC7"),
        // AN12196 rev. 2.0 §5.10 Table 19 (rev. 1.x §6.10 Table 20), key 0x03 = 16 × 00, steps 7–28.
        // Also in icedevml/nfc-ev2-crypto test_ev2.py (test_auth2).
        Vector(
            name: "Table 19: key 3", keyNumber: 3, rndA: "B98F4C50CF1C2E084FD150E33992B048",
            challenge: "B875CEB0E66A6C5CD00898DC371F92D1 91AF", rndB: "91517975190DCEA6104948EFA3085C1B",
            part2: "90AF000020 FF0306E47DFBC50087C4D8A78E88E62DE1E8BE457AA477C707E2F0874916A8B1 00",
            answer: "0CC9A8094A8EEA683ECAAC5C7BF20584206D0608D477110FC6B3D5D3F65C3A6A 9100",
            sv1: "A55A00010080 B98F DD01B6693705 CEA6104948EFA3085C1B 4FD150E33992B048", sv2: nil,
            encryptionKey: "7A93D6571E4B180FCA6AC90C9A7488D4", macKey: "FC4AF159B62E549B5812394CAB1918CC"),
    ]

    /// TI and capabilities of the two AuthenticateEV2First answers (Table 14 steps 19–22, Table 19 step 19).
    static let transactionIdentifiers = ["Table 14: key 0": "9D00C4DF", "Table 19: key 3": "7614281A"]

    @Test("AuthenticateEV2First: commands, RndB, SV1/SV2, TI and session keys", arguments: first)
    func authenticateFirst(_ vector: Vector) throws {
        let part1 = try EV2Authentication.first(
            keyNumber: vector.keyNumber, key: Self.zeroKey, rndA: bytes(vector.rndA))
        #expect(part1.command.encoded() == [0x90, 0x71, 0x00, 0x00, 0x02, vector.keyNumber, 0x00, 0x00])
        let part2 = try part1.respond(to: ResponseAPDU(hex: vector.challenge))
        #expect(part2.rndB == bytes(vector.rndB))
        #expect(part2.command.encoded() == bytes(vector.part2))
        let session = try part2.finish(with: ResponseAPDU(hex: vector.answer))
        #expect(session.transactionIdentifier == bytes(Self.transactionIdentifiers[vector.name]!))
        #expect(session.commandCounter == 0)
        #expect(session.keyNumber == vector.keyNumber)
        #expect(session.cardCapabilities == [UInt8](repeating: 0, count: 6))
        #expect(session.readerCapabilities == [UInt8](repeating: 0, count: 6))
        #expect(
            try EV2SessionKeys.sessionVector(
                label: EV2SessionKeys.encryptionLabel, rndA: bytes(vector.rndA),
                rndB: bytes(vector.rndB)) == bytes(vector.sv1))
        if let sv2 = vector.sv2 {
            #expect(
                try EV2SessionKeys.sessionVector(
                    label: EV2SessionKeys.macLabel, rndA: bytes(vector.rndA),
                    rndB: bytes(vector.rndB)) == bytes(sv2))
        }
        #expect(session.keys.encryption == bytes(vector.encryptionKey))
        #expect(session.keys.mac == bytes(vector.macKey))
    }

    @Test("Table 14: the first C-APDU is 90 71 00 00 02 00 00 00")
    func firstCommandOfTable14() throws {
        // AN12196 rev. 2.0 §5.6 Table 14 step 5; icedevml/nfc-ev2-crypto test_ev2.py test_auth1.
        let part1 = try EV2Authentication.first(
            keyNumber: 0, key: Self.zeroKey, rndA: bytes("13C5DB8A5930439FC3DEF9A4C675360F"))
        #expect(part1.command.encoded() == bytes("9071000002000000"))
        #expect(part1.instruction == .authenticateEV2First)
    }

    @Test("Table 14 step 18: the answer deciphers to TI ‖ RndA' ‖ PDcap2 ‖ PCDcap2")
    func answerPlaintextOfTable14() throws {
        // AN12196 rev. 2.0 §5.6 Table 14 step 18: 9D00C4DF C5DB8A5930439FC3DEF9A4C675360F13 000000000000 000000000000.
        let cipher = try AES128Cipher(key: [UInt8](repeating: 0, count: 16))
        let plain = try cipher.decryptCBC(
            bytes("3FA64DB5446D1F34CD6EA311167F5E4985B89690C04A05F17FA7AB2F08120663"),
            iv: [UInt8](repeating: 0, count: 16))
        #expect(plain == bytes("9D00C4DF C5DB8A5930439FC3DEF9A4C675360F13 000000000000 000000000000"))
        #expect(
            ByteRotation.rotatedLeft(bytes("13C5DB8A5930439FC3DEF9A4C675360F"))
                == bytes("C5DB8A5930439FC3DEF9A4C675360F13"))
    }

    @Test("Table 23: AuthenticateEV2NonFirst keeps TI and command counter, replaces the keys")
    func authenticateNonFirst() throws {
        // AN12196 rev. 2.0 §5.14 Table 23 (rev. 1.x §6.14 Table 24), key 0x00 = 16 × 00, steps 5–24,
        // inside the transaction Table 19 opened (TI 7614281A) after one command (Table 21, CmdCtr 0000).
        let keysOfTable19 = try EV2SessionKeys(
            encryption: bytes("7A93D6571E4B180FCA6AC90C9A7488D4"),
            mac: bytes("FC4AF159B62E549B5812394CAB1918CC"))
        let before = try EV2Session(
            keyNumber: 3, keys: keysOfTable19, transactionIdentifier: bytes("7614281A"), commandCounter: 1)
        let rndA = bytes("60BE759EDA560250AC57CDDC11743CF6")
        let part1 = try EV2Authentication.nonFirst(keyNumber: 0, key: Self.zeroKey, rndA: rndA, continuing: before)
        #expect(part1.command.encoded() == bytes("90770000010000"))
        #expect(part1.instruction == .authenticateEV2NonFirst)
        let part2 = try part1.respond(to: ResponseAPDU(hex: "A6A2B3C572D06C097BB8DB70463E22DC 91AF"))
        #expect(part2.rndB == bytes("6924E8D09722659A2E7DEC68E66312B8"))
        #expect(
            part2.command.encoded()
                == bytes("90AF000020 BE7D45753F2CAB85F34BC60CE58B940763FE969658A532DF6D95EA2773F6E991 00"))
        let session = try part2.finish(with: ResponseAPDU(hex: "B888349C24B315EAB5B589E279C8263E 9100"))
        #expect(
            try EV2SessionKeys.sessionVector(label: EV2SessionKeys.encryptionLabel, rndA: rndA, rndB: part2.rndB)
                == bytes("A55A00010080 60BE 1CBA32869572 659A2E7DEC68E66312B8 AC57CDDC11743CF6"))
        #expect(session.keys.encryption == bytes("4CF3CB41A22583A61E89B158D252FC53"))
        #expect(session.keys.mac == bytes("5529860B2FC5FB6154B7F28361D30BF9"))
        #expect(session.transactionIdentifier == bytes("7614281A"))
        #expect(session.commandCounter == 1)
        #expect(session.keyNumber == 0)
    }

    // MARK: - Refusals

    @Test("a tampered final answer is not the card's RndA': authentication fails")
    func tamperedAnswer() throws {
        let part1 = try EV2Authentication.first(
            keyNumber: 0, key: Self.zeroKey, rndA: bytes("13C5DB8A5930439FC3DEF9A4C675360F"))
        let part2 = try part1.respond(to: ResponseAPDU(hex: "A04C124213C186F22399D33AC2A30215 91AF"))
        var answer = bytes("3FA64DB5446D1F34CD6EA311167F5E4985B89690C04A05F17FA7AB2F08120663")
        answer[5] ^= 0x01
        #expect(
            throws: EV2Error.authenticationFailed(
                keyNumber: 0, instruction: .authenticateEV2First, statusWord: StatusWord(0x9100))
        ) {
            try part2.finish(with: ResponseAPDU(data: answer, sw1: 0x91, sw2: 0x00))
        }
    }

    @Test("another RndA than the one the card answered: authentication fails")
    func wrongRndA() throws {
        let part1 = try EV2Authentication.first(
            keyNumber: 0, key: Self.zeroKey, rndA: bytes("12C5DB8A5930439FC3DEF9A4C675360F"))
        let part2 = try part1.respond(to: ResponseAPDU(hex: "A04C124213C186F22399D33AC2A30215 91AF"))
        #expect(
            throws: EV2Error.authenticationFailed(
                keyNumber: 0, instruction: .authenticateEV2First, statusWord: StatusWord(0x9100))
        ) {
            try part2.finish(
                with: ResponseAPDU(hex: "3FA64DB5446D1F34CD6EA311167F5E4985B89690C04A05F17FA7AB2F08120663 9100"))
        }
    }

    @Test("a wrong key reads another RndB and cannot check the card's answer")
    func wrongKey() throws {
        let key = try DESFireKey(type: .aes, hex: "00000000000000000000000000000001")
        let part1 = try EV2Authentication.first(keyNumber: 0, key: key, rndA: bytes("13C5DB8A5930439FC3DEF9A4C675360F"))
        let part2 = try part1.respond(to: ResponseAPDU(hex: "A04C124213C186F22399D33AC2A30215 91AF"))
        #expect(part2.rndB != bytes("B9E2FC789B64BF237CCCAA20EC7E6E48"))
        #expect(
            part2.command.encoded()
                != bytes("90AF000020 35C3E05A752E0144BAC0DE51C1F22C56B34408A23D8AEA266CAB947EA8E0118D 00"))
        #expect(
            throws: EV2Error.authenticationFailed(
                keyNumber: 0, instruction: .authenticateEV2First, statusWord: StatusWord(0x9100))
        ) {
            try part2.finish(
                with: ResponseAPDU(hex: "3FA64DB5446D1F34CD6EA311167F5E4985B89690C04A05F17FA7AB2F08120663 9100"))
        }
    }

    @Test("the card's refusals carry the instruction and the status")
    func refusals() throws {
        let part1 = try EV2Authentication.first(
            keyNumber: 0, key: Self.zeroKey, rndA: bytes("13C5DB8A5930439FC3DEF9A4C675360F"))
        #expect(throws: EV2Error.cardStatus(.noSuchKey, instruction: .authenticateEV2First)) {
            try part1.respond(to: ResponseAPDU(hex: "9140"))
        }
        #expect(throws: EV2Error.unexpectedStatusWord(StatusWord(0x6A82), instruction: .authenticateEV2First)) {
            try part1.respond(to: ResponseAPDU(hex: "6A82"))
        }
        #expect(
            throws: EV2Error.malformedResponse(
                instruction: .authenticateEV2First, statusWord: StatusWord(0x91AF),
                reason: "challenge of 8 bytes, expected 16")
        ) {
            try part1.respond(to: ResponseAPDU(hex: "A04C124213C186F2 91AF"))
        }
        let part2 = try part1.respond(to: ResponseAPDU(hex: "A04C124213C186F22399D33AC2A30215 91AF"))
        // The card did not accept our RndB': 91 AE.
        #expect(throws: EV2Error.cardStatus(.authenticationError, instruction: .authenticateEV2First)) {
            try part2.finish(with: ResponseAPDU(hex: "91AE"))
        }
        #expect(
            throws: EV2Error.malformedResponse(
                instruction: .authenticateEV2First, statusWord: StatusWord(0x9100),
                reason: "answer of 16 bytes, expected 32")
        ) {
            try part2.finish(with: ResponseAPDU(hex: "3FA64DB5446D1F34CD6EA311167F5E49 9100"))
        }
    }

    @Test("arguments are checked before anything is computed")
    func arguments() throws {
        #expect(throws: EV2Error.invalidArgument("EV2 secure messaging needs an AES key, not DES")) {
            try EV2Authentication.first(keyNumber: 0, key: .defaultDES)
        }
        #expect(throws: EV2Error.invalidArgument("RndA has 16 bytes, not 8")) {
            try EV2Authentication.first(keyNumber: 0, key: Self.zeroKey, rndA: [UInt8](repeating: 1, count: 8))
        }
        #expect(throws: EV2Error.invalidArgument("PCDcap2 has at most 6 bytes, not 7")) {
            try EV2Authentication.first(
                keyNumber: 0, key: Self.zeroKey, pcdCapabilities: [UInt8](repeating: 0, count: 7))
        }
        // PCDcap2 goes after LenCap; a fresh RndA each time.
        let withCaps = try EV2Authentication.first(keyNumber: 2, key: Self.zeroKey, pcdCapabilities: [0x02])
        #expect(withCaps.command.encoded() == bytes("9071000003020102 00"))
        #expect(
            try EV2Authentication.first(keyNumber: 0, key: Self.zeroKey).rndA
                != EV2Authentication.first(keyNumber: 0, key: Self.zeroKey).rndA)
    }
}
