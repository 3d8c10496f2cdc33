import CardFlow
import CardFlowCrypto
import Testing

@testable import CardFlowDESFire

/// EV2 secure messaging (CommMode.MAC, CommMode.Full, plain commands inside a session) replayed
/// byte for byte from NXP AN12196. Each test starts from the session values the note prints, so a
/// failure names one step; EV2TransactionReplayTests runs the same tables through authentication.
@Suite("EV2 secure messaging vectors (AN12196)")
struct EV2SecureMessagingVectorTests {
    /// The session of AN12196 rev. 2.0 Table 14 (AuthenticateEV2First, key 0): TI 9D00C4DF.
    static func sessionOfTable14(counter: UInt16) throws -> EV2Session {
        try EV2Session(
            keyNumber: 0,
            keys: EV2SessionKeys(
                encryption: bytes("1309C877509E5A215007FF0ED19CA564"),
                mac: bytes("4C6626F5E72EA694202139295C7A7FC7")),
            transactionIdentifier: bytes("9D00C4DF"), commandCounter: counter)
    }

    /// The NDEF file AN12196 rev. 2.0 Tables 15–17 write: a URI record of 0x53 bytes
    /// ("https://choose.url.com/ntag424?e=00…00&c=00…00" with NLEN 0051), zeros up to 0x80 bytes.
    static let ndefFile: [UInt8] = {
        let record =
            bytes("0051D1014D550463686F6F73652E75726C2E636F6D2F6E7461673432343F653D")
            + Array(String(repeating: "0", count: 32).utf8) + Array("&c=".utf8)
            + Array(String(repeating: "0", count: 16).utf8)
        return record + [UInt8](repeating: 0, count: 0x80 - record.count)
    }()

    @Test("Table 7: GetFileSettings in CommMode.MAC, command and answer")
    func commModeMAC() throws {
        // AN12196 rev. 2.0 Table 7 (rev. 1.x §5.3, p. 21): SesAuthMACKey 8248134A386E86EB7FAF54A52E536CB6,
        // TI 7A21085E, CmdCtr 0000; MAC input F5 0000 7A21085E 02. The note gives no SesAuthENCKey;
        // CommMode.MAC does not use it. Also icedevml/nfc-ev2-crypto test_ev2.py test_mac1.
        var session = try EV2Session(
            keyNumber: 0,
            keys: EV2SessionKeys(
                encryption: [UInt8](repeating: 0, count: 16),
                mac: bytes("8248134A386E86EB7FAF54A52E536CB6")),
            transactionIdentifier: bytes("7A21085E"))
        #expect(try session.commandMAC(.getFileSettings, header: [0x02]) == bytes("6597A457C8CD442C"))
        #expect(
            try session.command(.getFileSettings, header: [0x02], mode: .mac).encoded()
                == bytes("90F5000009026597A457C8CD442C00"))
        let settings = bytes("0040EEEE000100D1FE001F00004400004400002000006A0000")
        #expect(try session.responseMAC(for: .getFileSettings, payload: settings) == bytes("2A474282E7A47986"))
        let answer = try ResponseAPDU(hex: "0040EEEE000100D1FE001F00004400004400002000006A0000 2A474282E7A47986 9100")
        #expect(try session.verifyResponse(answer, to: .getFileSettings, mode: .mac) == settings)
        #expect(session.commandCounter == 1)
    }

    @Test("Table 17: WriteData of the NDEF file in CommMode.Full, 128 bytes plus a whole padding block")
    func writeDataFull() throws {
        // AN12196 rev. 2.0 §5.8.2 Table 17 (rev. 1.x §6.8.2 Table 18), session of Table 14, CmdCtr 0000:
        // IVc step 9, ciphertext step 11, CMAC step 13, MACt step 14, C-APDU step 15, R-APDU step 16.
        // Steps 4 and 12 print the length as 530000; the C-APDU and the MAC carry 800000 (the file is
        // written to 0x80 bytes). Also icedevml/nfc-ev2-crypto test_ev2.py test_full1.
        var session = try Self.sessionOfTable14(counter: 0)
        let header = bytes("02 000000 800000")
        #expect(try session.commandIV() == bytes("D2CB7277A17841A06654A48188C1F8F5"))
        let field = try session.protect(.writeData, header: header, data: Self.ndefFile, mode: .enciphered)
        let ciphertext = bytes(
            """
            421C73A27D827658AF481FDFF20A5025B559D0E3AA21E58D347F343CFFC768BFE596C706BC00F2176781D4B0242642A0\
            FF5A42C461AAF894D9A1284B8C76BCFA658ACD40555D362E08DB15CF421B51283F9064BCBE20E96CAE545B407C9D651A\
            3315B27373772E5DA2367D2064AE054AF996C6F1F669170FA88CE8C4E3A4A7BBBEF0FD971FF532C3A802AF745660F2B4
            """)
        #expect(field == header + ciphertext + bytes("D1D9A8499661EBF3"))
        #expect(
            try AESCMAC.mac([0x8D, 0x00, 0x00] + bytes("9D00C4DF") + header + ciphertext, key: session.keys.mac)
                == bytes("A8D185D964A8E04998965461E7EB3EF3"))
        let apdu = try session.command(.writeData, header: header, data: Self.ndefFile, mode: .enciphered)
        #expect(apdu.encoded() == bytes("908D00009F02000000800000") + ciphertext + bytes("D1D9A8499661EBF300"))
        #expect(
            try session.verifyResponse(ResponseAPDU(hex: "FC222E5F7A542452 9100"), to: .writeData, mode: .enciphered)
                == [])
        #expect(session.commandCounter == 1)
    }

    @Test("Table 18: ChangeFileSettings in CommMode.Full at CmdCtr 0100 (least significant byte first)")
    func changeFileSettingsFull() throws {
        // AN12196 rev. 2.0 §5.9 Table 18 (rev. 1.x §6.9 Table 19), session of Table 14 after Table 17:
        // IVc step 9, ciphertext step 11, MAC input step 12, MACt step 14, C-APDU step 15,
        // answer MAC input step 19 (00 0200 9D00C4DF), R-APDU step 17.
        var session = try Self.sessionOfTable14(counter: 1)
        #expect(try session.commandIV() == bytes("3E27082AB2ACC1EF55C57547934E9962"))
        let settings = bytes("4000E0C1F121200000430000430000")
        #expect(
            try session.protect(.changeFileSettings, header: [0x02], data: settings, mode: .enciphered)
                == bytes("02 61B6D97903566E84C3AE5274467E89EA D799B7C1A0EF7A04"))
        #expect(
            MACTruncation.ev2OddBytes(
                try AESCMAC.mac(
                    bytes("5F01009D00C4DF0261B6D97903566E84C3AE5274467E89EA"),
                    key: session.keys.mac)) == bytes("D799B7C1A0EF7A04"))
        #expect(
            try session.command(.changeFileSettings, header: [0x02], data: settings, mode: .enciphered).encoded()
                == bytes("905F0000190261B6D97903566E84C3AE5274467E89EAD799B7C1A0EF7A0400"))
        #expect(
            MACTruncation.ev2OddBytes(try AESCMAC.mac(bytes("0002009D00C4DF"), key: session.keys.mac))
                == bytes("57BFF87B1241E93D"))
        #expect(try session.responseMAC(for: .changeFileSettings) == bytes("57BFF87B1241E93D"))
        #expect(
            try session.verifyResponse(
                ResponseAPDU(hex: "57BFF87B1241E93D 9100"), to: .changeFileSettings, mode: .enciphered) == [])
        #expect(session.commandCounter == 2)
    }

    @Test("Table 21: WriteData of 10 bytes in CommMode.Full, padded within one block")
    func writeDataFullUnaligned() throws {
        // AN12196 rev. 2.0 Table 21 (rev. 1.x §6.12, p. 36): session of Table 19 (key 3), CmdCtr 0000,
        // file 3, offset 0, 10 bytes 01…0A. Also icedevml/nfc-ev2-crypto test_ev2.py test_full2.
        var session = try EV2Session(
            keyNumber: 3,
            keys: EV2SessionKeys(
                encryption: bytes("7A93D6571E4B180FCA6AC90C9A7488D4"),
                mac: bytes("FC4AF159B62E549B5812394CAB1918CC")),
            transactionIdentifier: bytes("7614281A"))
        let apdu = try session.command(
            .writeData, header: bytes("03 000000 0A0000"), data: Array(1...10), mode: .enciphered)
        #expect(apdu.encoded() == bytes("908D00001F030000000A00006B5E6804909962FC4E3FF5522CF0F8436C0C53315B9C73AA00"))
        #expect(
            try session.verifyResponse(ResponseAPDU(hex: "C26D236E4A7C046D 9100"), to: .writeData, mode: .enciphered)
                == [])
        #expect(session.commandCounter == 1)
    }

    @Test("Table 24: a plain WriteData inside the session sends no MAC and still counts")
    func plainCommandCounts() throws {
        // AN12196 rev. 2.0 Table 24: WriteData of the CC file (file 1, offset 0E, 18 bytes) in
        // CommMode.Plain at CmdCtr 0100 of the Table 19/23 transaction; Table 25 then runs at 0200.
        var session = try EV2Session(
            keyNumber: 0,
            keys: EV2SessionKeys(
                encryption: bytes("4CF3CB41A22583A61E89B158D252FC53"),
                mac: bytes("5529860B2FC5FB6154B7F28361D30BF9")),
            transactionIdentifier: bytes("7614281A"), commandCounter: 1)
        let apdu = try session.command(
            .writeData, header: bytes("01 0E0000 120000"),
            data: bytes("FF0506E10500808283000000000000000000"), mode: .plain)
        #expect(apdu.encoded() == bytes("908D000019010E0000120000FF0506E1050080828300000000000000000000"))
        #expect(try session.verifyResponse(ResponseAPDU(hex: "9100"), to: .writeData, mode: .plain) == [])
        #expect(session.commandCounter == 2)
    }

    @Test("Table 28: GetCardUID, no header and no data; the answer enciphered under IVr")
    func getCardUIDFull() throws {
        // AN12196 rev. 2.0 §6.3 Table 28 (rev. 1.x §7.3 Table 29, p. 45): SesAuthMACKey step 2,
        // SesAuthENCKey step 3, TI step 5, MACt step 9, C-APDU step 10, answer CMAC step 13 (over
        // 00 0100 DF055522 ‖ cryptogram, no instruction byte), IVr step 17, plaintext step 18, UID step 19.
        // Also icedevml/nfc-ev2-crypto test_ev2.py test_full3.
        var session = try EV2Session(
            keyNumber: 0,
            keys: EV2SessionKeys(
                encryption: bytes("2B4D963C014DC36F24F69A50A394F875"),
                mac: bytes("379D32130CE61705DD5FD8C36B95D764")),
            transactionIdentifier: bytes("DF055522"))
        #expect(try session.command(.getCardUID, mode: .enciphered).encoded() == bytes("90510000088E2C155ADDA99BE300"))
        let cryptogram = bytes("70756055688505B52A5E26E59E329CD6")
        #expect(
            try AESCMAC.mac(bytes("000100DF055522") + cryptogram, key: session.keys.mac)
                == bytes("F4593D5FAB671F225798C4EA894195B7"))
        #expect(try session.responseIV(for: .getCardUID) == bytes("7F6BB0B278EA054CBD238C5D9E9E342B"))
        #expect(
            try AES128Cipher(key: session.keys.encryption).decryptCBC(
                cryptogram, iv: session.responseIV(for: .getCardUID))
                == bytes("04958CAA5C5E80800000000000000000"))
        let answer = try ResponseAPDU(hex: "70756055688505B52A5E26E59E329CD6 595F672298EA41B7 9100")
        #expect(try session.verifyResponse(answer, to: .getCardUID, mode: .enciphered) == bytes("04958CAA5C5E80"))
        #expect(session.commandCounter == 1)
    }

    // MARK: - Refusals

    @Test("a tampered answer fails its MAC; the counter does not move")
    func tamperedAnswer() throws {
        var session = try Self.sessionOfTable14(counter: 1)
        #expect(
            throws: EV2Error.integrityCheckFailed(
                instruction: .changeFileSettings, statusWord: StatusWord(0x9100), reason: "MAC mismatch")
        ) {
            try session.verifyResponse(
                ResponseAPDU(hex: "57BFF87B1241E93C 9100"), to: .changeFileSettings, mode: .enciphered)
        }
        #expect(session.commandCounter == 1)
        var uidSession = try EV2Session(
            keyNumber: 0,
            keys: EV2SessionKeys(
                encryption: bytes("2B4D963C014DC36F24F69A50A394F875"),
                mac: bytes("379D32130CE61705DD5FD8C36B95D764")),
            transactionIdentifier: bytes("DF055522"))
        #expect(
            throws: EV2Error.integrityCheckFailed(
                instruction: .getCardUID, statusWord: StatusWord(0x9100), reason: "MAC mismatch")
        ) {
            try uidSession.verifyResponse(
                ResponseAPDU(hex: "70756055688505B52A5E26E59E329CD7 595F672298EA41B7 9100"),
                to: .getCardUID, mode: .enciphered)
        }
    }

    @Test("the right answer at the wrong counter or under another return code fails its MAC")
    func wrongCounter() throws {
        // Table 18's answer belongs to CmdCtr 0100; verified at 0000 it would be MACed with 0100, not 0200.
        var early = try Self.sessionOfTable14(counter: 0)
        #expect(
            throws: EV2Error.integrityCheckFailed(
                instruction: .changeFileSettings, statusWord: StatusWord(0x9100), reason: "MAC mismatch")
        ) {
            try early.verifyResponse(
                ResponseAPDU(hex: "57BFF87B1241E93D 9100"), to: .changeFileSettings, mode: .enciphered)
        }
        let session = try Self.sessionOfTable14(counter: 1)
        #expect(try session.responseMAC(for: .changeFileSettings, returnCode: 0x01) != bytes("57BFF87B1241E93D"))
    }

    @Test("error statuses and non-native answers carry the instruction; the counter does not move")
    func errorStatus() throws {
        var session = try Self.sessionOfTable14(counter: 0)
        #expect(throws: EV2Error.cardStatus(.permissionDenied, instruction: .writeData)) {
            try session.verifyResponse(ResponseAPDU(hex: "919D"), to: .writeData, mode: .enciphered)
        }
        #expect(throws: EV2Error.cardStatus(.integrityError, instruction: .writeData)) {
            try session.verifyResponse(ResponseAPDU(hex: "911E"), to: .writeData, mode: .plain)
        }
        #expect(throws: EV2Error.unexpectedStatusWord(StatusWord(0x6A82), instruction: .readData)) {
            try session.verifyResponse(ResponseAPDU(hex: "6A82"), to: .readData, mode: .mac)
        }
        #expect(
            throws: EV2Error.malformedResponse(
                instruction: .readData, statusWord: StatusWord(0x9100),
                reason: "answer of 4 bytes has no MAC")
        ) {
            try session.verifyResponse(ResponseAPDU(hex: "01020304 9100"), to: .readData, mode: .mac)
        }
        #expect(session.commandCounter == 0)
    }

    @Test("a deciphered answer without method 2 padding is refused")
    func missingPadding() throws {
        // A cryptogram of 16 × 11 with a valid MAC: only the padding is wrong.
        var session = try Self.sessionOfTable14(counter: 5)
        let cryptogram = try AES128Cipher(key: session.keys.encryption)
            .encryptCBC([UInt8](repeating: 0x11, count: 16), iv: session.responseIV(for: .readData))
        let answer = ResponseAPDU(
            data: cryptogram + (try session.responseMAC(for: .readData, payload: cryptogram)), sw1: 0x91, sw2: 0x00)
        #expect(
            throws: EV2Error.integrityCheckFailed(
                instruction: .readData, statusWord: StatusWord(0x9100),
                reason: "deciphered answer does not end in ISO 9797-1 method 2 padding")
        ) {
            try session.verifyResponse(answer, to: .readData, mode: .enciphered)
        }
        let ragged = ResponseAPDU(
            data: Array(cryptogram.prefix(10))
                + (try session.responseMAC(for: .readData, payload: Array(cryptogram.prefix(10)))),
            sw1: 0x91, sw2: 0x00)
        #expect(
            throws: EV2Error.malformedResponse(
                instruction: .readData, statusWord: StatusWord(0x9100),
                reason: "enciphered answer of 10 bytes is not whole blocks")
        ) {
            try session.verifyResponse(ragged, to: .readData, mode: .enciphered)
        }
    }

    @Test("at CmdCtr FFFF no command can be sent")
    func counterExhausted() throws {
        let session = try Self.sessionOfTable14(counter: .max)
        #expect(throws: EV2Error.commandCounterExhausted(instruction: .writeData)) {
            try session.command(.writeData, header: [0x02], data: [0x01], mode: .enciphered)
        }
        #expect(throws: EV2Error.commandCounterExhausted(instruction: .getCardUID)) {
            try session.responseIV(for: .getCardUID)
        }
        #expect(try Self.sessionOfTable14(counter: .max - 1).command(.getCardUID, mode: .mac).ins == 0x51)
    }

    @Test("session values are checked; descriptions never show keys")
    func sessionValues() throws {
        #expect(throws: EV2Error.invalidArgument("EV2 session keys have 16 bytes, not 8 and 16")) {
            try EV2SessionKeys(encryption: [UInt8](repeating: 0, count: 8), mac: [UInt8](repeating: 0, count: 16))
        }
        let keys = try EV2SessionKeys(
            encryption: bytes("1309C877509E5A215007FF0ED19CA564"), mac: bytes("4C6626F5E72EA694202139295C7A7FC7"))
        #expect(throws: EV2Error.invalidArgument("a transaction identifier has 4 bytes, not 3")) {
            try EV2Session(keyNumber: 0, keys: keys, transactionIdentifier: [1, 2, 3])
        }
        let session = try Self.sessionOfTable14(counter: 7)
        #expect(!session.description.contains("1309"))
        #expect(!"\(keys)".contains("1309"))
        #expect(session.description == "<EV2 session, key 0, TI 9D00C4DF, CmdCtr 7>")
        #expect(EV2Instruction(0x8D).description == "WriteData (8D)")
        #expect(EV2Instruction(0x6E).description == "6E")
    }
}
