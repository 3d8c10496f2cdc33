import CardFlowCrypto
import Testing

@testable import CardFlowSimulator
@testable import CardFlowSimulatorCards

/// The simulated NTAG 424 DNA answering AN12196's (rev. 2.0) published C-APDUs with its
/// published R-APDUs, byte for byte. The card's RndB and TI are scripted to the tables'.
@Suite("NTAG 424 DNA card: AN12196 tables")
struct NTAG424CardVectorTests {
    typealias T = NTAG424Test

    @Test("Tables 14, 17, 18: AuthenticateEV2First, WriteData (Full), ChangeFileSettings (Full, SDM)")
    func firstTransaction() throws {
        // Before Table 17 the note's NDEF file was set to CommMode.Full with write key 0 (its
        // TapLinx forum thread: "The write file access was set to 0"); Table 17 runs at CmdCtr 0.
        let before = SimulatedNTAG424FileSettings(
            communicationMode: .full, accessRights: .init(read: 0xE, write: 0, readWrite: 0, change: 0))
        var card = try SimulatedNTAG424Card(seed: 14, configuration: .init(ndefFileSettings: before))
        card.scriptedRandom = bytes("B9E2FC789B64BF237CCCAA20EC7E6E48 9D00C4DF")
        card.powerOn()
        #expect(T.send(&card, "00A4040C07D276000085010100") == "9000")
        // Table 14 steps 5–6 and 14–22.
        #expect(T.send(&card, "9071000002000000") == T.hex("A04C124213C186F22399D33AC2A30215 91AF"))
        #expect(
            T.send(&card, "90AF000020 35C3E05A752E0144BAC0DE51C1F22C56B34408A23D8AEA266CAB947EA8E0118D 00")
                == T.hex("3FA64DB5446D1F34CD6EA311167F5E4985B89690C04A05F17FA7AB2F08120663 9100"))
        // Table 17 steps 15–16.
        let ciphertext = """
            421C73A27D827658AF481FDFF20A5025B559D0E3AA21E58D347F343CFFC768BFE596C706BC00F2176781D4B0242642A0\
            FF5A42C461AAF894D9A1284B8C76BCFA658ACD40555D362E08DB15CF421B51283F9064BCBE20E96CAE545B407C9D651A\
            3315B27373772E5DA2367D2064AE054AF996C6F1F669170FA88CE8C4E3A4A7BBBEF0FD971FF532C3A802AF745660F2B4
            """
        #expect(
            T.send(&card, "908D00009F02000000800000" + ciphertext + "D1D9A8499661EBF300")
                == T.hex("FC222E5F7A542452 9100"))
        let written =
            bytes("0051D1014D550463686F6F73652E75726C2E636F6D2F6E7461673432343F653D")
            + Array(String(repeating: "0", count: 32).utf8) + Array("&c=".utf8)
            + Array(String(repeating: "0", count: 16).utf8)
        #expect(card.fileContent(2).map { Array($0.prefix(written.count)) } == written)
        // Table 18 steps 15–17.
        #expect(
            T.send(&card, "905F0000190261B6D97903566E84C3AE5274467E89EAD799B7C1A0EF7A0400")
                == T.hex("57BFF87B1241E93D 9100"))
        let sdm = try #require(card.fileSettings(2)?.sdm)
        #expect(
            sdm
                == SimulatedNTAG424SDMSettings(
                    mirrorsUID: true, mirrorsReadCounter: true, counterRetrievalKey: 1, metaReadKey: 2,
                    fileReadKey: 1, piccDataOffset: 0x20, macInputOffset: 0x43, macOffset: 0x43))
        #expect(
            card.fileSettings(2)?.accessRights
                == SimulatedNTAG424AccessRights(read: 0xE, write: 0, readWrite: 0, change: 0))
        #expect(card.fileSettings(2)?.communicationMode == .plain)
    }

    @Test("Tables 19, 21, 23, 24, 25, 26: key 3, WriteData, NonFirst key 0, plain WriteData, ChangeKey twice")
    func secondTransaction() throws {
        var card = SimulatedNTAG424Card(seed: 19)
        card.scriptedRandom = bytes("91517975190DCEA6104948EFA3085C1B 7614281A 6924E8D09722659A2E7DEC68E66312B8")
        card.powerOn()
        #expect(T.send(&card, "00A4040C07D276000085010100") == "9000")
        // Table 19.
        #expect(T.send(&card, "9071000002030000") == T.hex("B875CEB0E66A6C5CD00898DC371F92D1 91AF"))
        #expect(
            T.send(&card, "90AF000020 FF0306E47DFBC50087C4D8A78E88E62DE1E8BE457AA477C707E2F0874916A8B1 00")
                == T.hex("0CC9A8094A8EEA683ECAAC5C7BF20584206D0608D477110FC6B3D5D3F65C3A6A 9100"))
        // Table 21: 10 bytes into the proprietary file (CommMode.Full, write key 3).
        #expect(
            T.send(&card, "908D00001F030000000A00006B5E6804909962FC4E3FF5522CF0F8436C0C53315B9C73AA00")
                == T.hex("C26D236E4A7C046D 9100"))
        #expect(card.fileContent(3).map { Array($0.prefix(11)) } == Array(1...10) + [0])
        // Table 23: AuthenticateEV2NonFirst with key 0 keeps TI and CmdCtr.
        #expect(T.send(&card, "90770000010000") == T.hex("A6A2B3C572D06C097BB8DB70463E22DC 91AF"))
        #expect(
            T.send(&card, "90AF000020 BE7D45753F2CAB85F34BC60CE58B940763FE969658A532DF6D95EA2773F6E991 00")
                == T.hex("B888349C24B315EAB5B589E279C8263E 9100"))
        // Table 24: the CC file, CommMode.Plain inside the session (no MAC, the counter moves).
        #expect(T.send(&card, "908D000019010E0000120000FF0506E1050080828300000000000000000000") == "9100")
        #expect(card.fileContent(1).map { Array($0[14..<23]) } == bytes("FF0506E10500808283"))
        // Table 25: key 2 from key 0's session.
        #expect(
            T.send(
                &card,
                "90C4000029 02 2CF362B7BF4311FF3BE1DAA295E8C68DE09050560D19B9E16C2393AE9CD1FAC7 5D0CE20BCD1D06E6 00")
                == T.hex("203BB55D1089D587 9100"))
        #expect(card.keyVersion(2) == 1)
        // Table 26: key 0 itself; a bare 91 00 and the session is over.
        #expect(
            T.send(
                &card,
                "90C4000029 00 C0EB4DEEFEDDF0B513A03A95A75491818580503190D4D05053FF75668A01D6FD A6610234BDED6432 00")
                == "9100")
        #expect(card.keyVersion(0) == 1)
        #expect(card.session == nil)
        #expect(T.send(&card, "9064000001 02 00") == "019100")
        #expect(card.keys[2] == bytes("F3847D627727ED3BC9C4CC050489B966"))
        #expect(card.keys[0] == bytes("5004BF991F408672B1EF00F08F9E8647"))
    }

    @Test("Table 7: GetFileSettings in CommMode.MAC")
    func getFileSettingsMAC() throws {
        let sdm = SimulatedNTAG424SDMSettings(
            mirrorsUID: true, mirrorsReadCounter: true, encryptsFileData: true, counterRetrievalKey: 0xE,
            metaReadKey: 0, fileReadKey: 0, piccDataOffset: 0x1F, macInputOffset: 0x44,
            encOffset: 0x44, encLength: 0x20, macOffset: 0x6A)
        let settings = SimulatedNTAG424FileSettings(
            communicationMode: .plain, accessRights: .init(read: 0xE, write: 0xE, readWrite: 0xE, change: 0xE),
            sdm: sdm)
        var card = try SimulatedNTAG424Card(seed: 7, configuration: .init(ndefFileSettings: settings))
        card.powerOn()
        card.installSession(
            keyNumber: 0, encryptionKey: T.zeroKey, macKey: bytes("8248134A386E86EB7FAF54A52E536CB6"),
            transactionIdentifier: bytes("7A21085E"))
        #expect(
            T.send(&card, "90F5000009026597A457C8CD442C00")
                == T.hex("0040EEEE000100D1FE001F00004400004400002000006A0000 2A474282E7A47986 9100"))
        #expect(card.session?.commandCounter == 1)
    }

    @Test("Table 27: SetConfiguration turns the random ID on")
    func setConfiguration() throws {
        var card = SimulatedNTAG424Card(seed: 27)
        card.powerOn()
        card.installSession(
            keyNumber: 0, encryptionKey: bytes("7951A705F47F3C29B596454DC1490383"),
            macKey: bytes("FE4EDBF46536557E304682F33E63A84F"), transactionIdentifier: bytes("D779B1D0"))
        #expect(
            T.send(&card, "905C000019008EA0138A7AF6FC8E99DF2A3A305602C43A7A3C9228C3134A00")
                == T.hex("86044208CAD1676A 9100"))
        #expect(card.randomIDEnabled)
        card.powerOn()
        #expect(card.uid.count == 4 && card.uid.first == 0x08)
        let first = card.uid
        card.powerOn()
        #expect(card.uid != first)
        #expect(card.realUID.count == 7)
    }

    @Test("Table 28: GetCardUID in CommMode.Full")
    func getCardUID() throws {
        var card = try SimulatedNTAG424Card(seed: 28, configuration: .init(uid: bytes("04958CAA5C5E80")))
        card.powerOn()
        card.installSession(
            keyNumber: 0, encryptionKey: bytes("2B4D963C014DC36F24F69A50A394F875"),
            macKey: bytes("379D32130CE61705DD5FD8C36B95D764"), transactionIdentifier: bytes("DF055522"))
        #expect(
            T.send(&card, "90510000088E2C155ADDA99BE300")
                == T.hex("70756055688505B52A5E26E59E329CD6 595F672298EA41B7 9100"))
    }
}
