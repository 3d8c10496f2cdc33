import CardFlowCrypto
import Foundation
import Testing

@testable import CardFlowSimulator
@testable import CardFlowSimulatorCards

/// Factory state, status codes of the data sheet, and random input.
@Suite("NTAG 424 DNA card: factory state, errors, fuzz")
struct NTAG424CardErrorTests {
    typealias T = NTAG424Test

    @Test("factory state: GetVersion in three frames, CC file, file settings, key versions")
    func factoryState() throws {
        var card = try SimulatedNTAG424Card(seed: 1, configuration: .init(uid: bytes("04112233445566")))
        card.powerOn()
        #expect(T.send(&card, "9060000000") == "04040230001105" + "91AF")
        #expect(T.send(&card, "90AF000000") == "04040201021105" + "91AF")
        let last = card.process(bytes("90AF000000"))
        #expect(
            last.count == 16 && Array(last.prefix(7)) == bytes("04112233445566")
                && Array(last.suffix(2)) == [0x91, 0x00])
        #expect(T.send(&card, "90AF000000") == "911C")
        #expect(T.send(&card, "00A4040C07D276000085010100") == "9000")
        #expect(T.send(&card, "00A4000C02E103") == "9000")
        #expect(
            T.send(&card, "00B0000000")
                == T.hex("001720010000FF0406E104010000000506E10500808283000000000000000000 9000"))
        #expect(T.send(&card, "90F5000001 01 00") == T.hex("000000E0 200000 9100"))
        #expect(T.send(&card, "90F5000001 02 00") == T.hex("0000E0EE 000100 9100"))
        #expect(T.send(&card, "90F5000001 03 00") == T.hex("00033023 800000 9100"))
        #expect(T.send(&card, "90F5000001 04 00") == "91F0")
        #expect(T.send(&card, "9064000001 04 00") == "009100")
        #expect(T.send(&card, "9064000001 05 00") == "9140")
        #expect(T.send(&card, "903C000001 00 00").count == 2 * 58)
        // The NDEF file is free to write and read with ISO commands; the proprietary file is not.
        #expect(T.send(&card, "00A4000C02E104") == "9000")
        #expect(T.send(&card, "00D6000003 000102") == "9000")
        #expect(T.send(&card, "00B0000003") == "0001029000")
        #expect(T.send(&card, "00A4000C02E105") == "9000")
        #expect(T.send(&card, "00B0000010") == "6982")
        #expect(T.send(&card, "00A4000C02E106") == "6A82")
        #expect(T.send(&card, "90AD00000703000000000000 00") == "91AE")
    }

    @Test("authentication failures: wrong RndB', wrong length, no such key, out of sequence")
    func authenticationFailures() throws {
        var card = SimulatedNTAG424Card(seed: 2)
        card.powerOn()
        #expect(T.send(&card, "9071000002000000") == "919D") // the application is not selected
        _ = card.process(T.selectApplication)
        #expect(T.send(&card, "9071000002050000") == "9140")
        #expect(T.send(&card, "90710000010000") == "917E")
        // Table 14's RndB, but a token for another RndB: 91 AE.
        card.scriptedRandom = bytes("00000000000000000000000000000001")
        #expect(card.process(bytes("9071000002000000")).suffix(2) == [0x91, 0xAF])
        #expect(
            T.send(&card, "90AF000020 35C3E05A752E0144BAC0DE51C1F22C56B34408A23D8AEA266CAB947EA8E0118D 00") == "91AE")
        #expect(T.send(&card, "90AF000000") == "911C")
        // A token of the wrong length.
        #expect(card.process(bytes("9071000002000000")).suffix(2) == [0x91, 0xAF])
        #expect(T.send(&card, "90AF000010 35C3E05A752E0144BAC0DE51C1F22C56 00") == "917E")
        // Another command while the card waits for the token.
        #expect(card.process(bytes("9071000002000000")).suffix(2) == [0x91, 0xAF])
        #expect(T.send(&card, "9060000000") == "91CA")
        // NonFirst without a session.
        #expect(T.send(&card, "90770000010000") == "91AE")
        #expect(T.send(&card, "90510000088E2C155ADDA99BE300") == "91AE")
    }

    @Test("secure messaging: a wrong MAC is an integrity error and ends the session")
    func wrongMAC() throws {
        var card = try T.cardAfterTable14()
        #expect(card.session != nil)
        #expect(T.send(&card, "90F5000009 02 6597A457C8CD442D 00") == "911E")
        #expect(card.session == nil)
        #expect(T.send(&card, "90510000088E2C155ADDA99BE300") == "91AE")
    }

    @Test("GetCardUID, GetFileCounters and ReadData through a test-side channel")
    func channelCommands() throws {
        var card = try T.cardAfterTable14(configuration: .init(uid: bytes("04958CAA5C5E80")))
        var channel = T.table14
        let uidAnswer = card.process(channel.command(0x51, header: []))
        #expect(uidAnswer.count == 16 + 8 + 2)
        #expect(Array(uidAnswer[16..<24]) == channel.responseMAC(Array(uidAnswer[..<16])))
        #expect(channel.decipherResponse(Array(uidAnswer[..<16])) == bytes("04958CAA5C5E80"))
        channel.counter += 1
        // The proprietary file needs key 2 or 3; key 0 is refused (91 AE), which ends the session.
        #expect(card.process(channel.command(0xAD, header: bytes("03 000000 000000"))) == [0x91, 0xAE])
        #expect(card.session == nil)
    }

    @Test(
        "ChangeFileSettings: bad SDM parameters answer 91 9E, a truncated or overlong field 91 7E",
        arguments: [
            ("40 00E0 C1 F121 200000 430000", UInt8(0x7E)), // SDMMACOffset missing
            ("40 00E0 81 F12F 200000 430000 430000", UInt8(0x7E)), // SDMFileRead F: no MAC offsets expected
            ("40 00E0 C1 F121 F00000 430000 430000", UInt8(0x9E)), // PICCData beyond the file
            ("40 00E0 C1 F121 200000 500000 480000", UInt8(0x9E)), // SDMMACInputOffset after SDMMACOffset
            ("40 00E0 C0 F121 200000 430000 430000", UInt8(0x9E)), // ASCII bit clear
            ("40 00E0 C9 F121 200000 430000 430000", UInt8(0x9E)), // TagTamper bit on a non-TT tag
            ("40 00E0 01 FF21 200000 430000 430000", UInt8(0x9E)), // SDMMetaRead key with nothing mirrored
            ("40 00E0 51 F121 200000 430000 430000 200000 700000", UInt8(0x9E)), // SDMENCFileData without the UID
            ("40 00E0 C1 F121 200000 280000 280000", UInt8(0x9E)), // SDMMAC inside PICCData
            ("40 00E0 C1 F521 200000 430000 430000", UInt8(0x9E)), // SDMCtrRet key 5
            ("80 00E0", UInt8(0x9E)), // FileOption RFU bit
            ("00 00E5", UInt8(0x9E)), // access condition 5
        ])
    func changeFileSettingsChecks(_ settings: String, _ status: UInt8) throws {
        var card = try T.cardAfterTable14()
        #expect(card.process(T.table14.command(0x5F, header: [0x02], data: bytes(settings))) == [0x91, status])
        #expect(card.fileSettings(2)?.sdm == nil)
        #expect(card.session == nil)
    }

    @Test("ChangeKey of another key with a wrong CRC is an integrity error")
    func changeKeyCRC() throws {
        var card = try T.cardAfterTable14()
        let newKey = bytes("F3847D627727ED3BC9C4CC050489B966")
        var data = newKey + [0x01] + DESFireCRC32.bytes(newKey)
        data[17] ^= 0xFF
        #expect(card.process(T.table14.command(0xC4, header: [0x02], data: data)) == [0x91, 0x1E])
        #expect(card.keyVersion(2) == 0)
    }

    @Test("SetConfiguration refuses to enable LRP")
    func refusesLRP() throws {
        var card = try T.cardAfterTable14()
        let capabilities = bytes("00000000 02 00000000 00")
        #expect(card.process(T.table14.command(0x5C, header: [0x05], data: capabilities)) == [0x91, 0x9E])
    }

    @Test("the state survives a save and load; a corrupt state is refused")
    func persistence() throws {
        var card = try T.cardAfterTable14()
        #expect(T.send(&card, "908D00000A 02 000000 030000 070809 00") == "9100")
        let data = try JSONEncoder().encode(card)
        var loaded = try JSONDecoder().decode(SimulatedNTAG424Card.self, from: data)
        #expect(loaded.fileContent(2)?.prefix(3) == [7, 8, 9])
        #expect(loaded.realUID == card.realUID)
        loaded.powerOn()
        #expect(loaded.session == nil)
        var object = try #require(JSONSerialization.jsonObject(with: data) as? [String: Any])
        object["keys"] = [[1, 2, 3]]
        let corrupt = try JSONSerialization.data(withJSONObject: object)
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(SimulatedNTAG424Card.self, from: corrupt) }
    }

    @Test("random bytes never trap and always end in a status word")
    func fuzz() throws {
        var generator = SeededGenerator(seed: 424)
        var card = try T.cardAfterTable14()
        let prefixes: [[UInt8]] = [
            [0x90], [0x00], [0x90, 0xAF], [0x90, 0x71], [0x90, 0x8D], [0x90, 0x5F], [0x00, 0xB0], [0x00, 0xA4], [],
        ]
        for round in 0..<3000 {
            if round % 500 == 0 { card.powerOn(); _ = card.process(T.selectApplication) }
            let prefix = prefixes[Int.random(in: 0..<prefixes.count, using: &generator)]
            let length = Int.random(in: 0...60, using: &generator)
            var command = prefix + (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
            if command.count >= 5, Bool.random(using: &generator) {
                command[2] = 0; command[3] = 0
                command[4] = UInt8(truncatingIfNeeded: command.count - 6)
            }
            let answer = card.process(command)
            #expect(answer.count >= 2)
            #expect([0x90, 0x91, 0x62, 0x67, 0x69, 0x6A, 0x6B, 0x6D, 0x6E].contains(answer[answer.count - 2]))
        }
    }
}
