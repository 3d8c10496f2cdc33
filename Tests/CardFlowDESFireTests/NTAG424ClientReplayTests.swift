import CardFlow
import Synchronization
import Testing

@testable import CardFlowDESFire

/// The NTAG 424 DNA client driven through AN12196's personalization example: every command it
/// sends compared with the published C-APDU, every published R-APDU fed back.
@Suite("NTAG 424 DNA client replayed (AN12196)")
struct NTAG424ClientReplayTests {
    static let zeroKey = try! DESFireKey(type: .aes, bytes: [UInt8](repeating: 0, count: 16))

    /// AN12196 Table 18's SDM layout: PICCData (key 2) at 0x20, SDMMAC (key 1) over nothing at 0x43.
    static let table18Settings = NTAG424FileSettings(
        commMode: .plain, accessRights: DESFireAccessRights(rawValue: 0xE000),
        sdm: NTAG424SDMSettings(
            metaReadKey: 2, fileReadKey: 1, counterRetrievalKey: 1,
            piccDataOffset: 0x20, macInputOffset: 0x43, macOffset: 0x43))

    @Test("Tables 14, 17, 18: select, AuthenticateEV2First, WriteData and ChangeFileSettings with SDM")
    func personalizeNDEFFile() async throws {
        let card = ScriptedDESFireChannel([
            "9000",
            "A04C124213C186F22399D33AC2A30215 91AF",
            "3FA64DB5446D1F34CD6EA311167F5E4985B89690C04A05F17FA7AB2F08120663 9100",
            "FC222E5F7A542452 9100",
            "57BFF87B1241E93D 9100",
        ])
        let tag = NTAG424Client(channel: card, randomBytes: fixedRandom("13C5DB8A5930439FC3DEF9A4C675360F"))
        try await tag.selectNDEFApplication()
        try await tag.authenticate(keyNumber: 0, key: Self.zeroKey)
        try await tag.writeData(.ndef, data: EV2SecureMessagingVectorTests.ndefFile, mode: .enciphered)
        #expect(Self.table18Settings.changeFileSettingsData == bytes("4000E0C1F121200000430000430000"))
        try await tag.changeFileSettings(.ndef, to: Self.table18Settings)
        #expect(
            await card.sentHex == [
                "00A4040C07D276000085010100",
                "9071000002000000",
                compact("90AF000020 35C3E05A752E0144BAC0DE51C1F22C56B34408A23D8AEA266CAB947EA8E0118D 00"),
                compact(
                    """
                    908D00009F02000000800000421C73A27D827658AF481FDFF20A5025B559D0E3AA21E58D347F343CFFC768BFE596C706BC00F2\
                    176781D4B0242642A0FF5A42C461AAF894D9A1284B8C76BCFA658ACD40555D362E08DB15CF421B51283F9064BCBE20E96CAE54\
                    5B407C9D651A3315B27373772E5DA2367D2064AE054AF996C6F1F669170FA88CE8C4E3A4A7BBBEF0FD971FF532C3A802AF7456\
                    60F2B4D1D9A8499661EBF300
                    """),
                "905F0000190261B6D97903566E84C3AE5274467E89EAD799B7C1A0EF7A0400",
            ])
        #expect(await tag.isAuthenticated)
    }

    @Test("Tables 19, 21, 23, 24, 25, 26: key 3, WriteData, NonFirst with key 0, plain WriteData, ChangeKey twice")
    func changeKeys() async throws {
        let card = ScriptedDESFireChannel([
            "B875CEB0E66A6C5CD00898DC371F92D1 91AF",
            "0CC9A8094A8EEA683ECAAC5C7BF20584206D0608D477110FC6B3D5D3F65C3A6A 9100",
            "C26D236E4A7C046D 9100",
            "A6A2B3C572D06C097BB8DB70463E22DC 91AF",
            "B888349C24B315EAB5B589E279C8263E 9100",
            "9100",
            "203BB55D1089D587 9100",
            "9100",
        ])
        let rndA = RandomScript(["B98F4C50CF1C2E084FD150E33992B048", "60BE759EDA560250AC57CDDC11743CF6"])
        let tag = NTAG424Client(channel: card, randomBytes: { _ in rndA.next() })
        try await tag.authenticate(keyNumber: 3, key: Self.zeroKey)
        try await tag.writeData(.proprietary, data: Array(1...10), mode: .enciphered)
        try await tag.authenticateNonFirst(keyNumber: 0, key: Self.zeroKey)
        try await tag.writeData(
            .capabilityContainer, offset: 0x0E, data: bytes("FF0506E10500808283000000000000000000"), mode: .plain)
        try await tag.changeKey(
            2, to: DESFireKey(type: .aes, hex: "F3847D627727ED3BC9C4CC050489B966", version: 1), oldKey: Self.zeroKey)
        #expect(await tag.isAuthenticated)
        try await tag.changeKey(0, to: DESFireKey(type: .aes, hex: "5004BF991F408672B1EF00F08F9E8647", version: 1))
        #expect(await !tag.isAuthenticated, "changing the session's own key ends the session")
        #expect(
            await card.sentHex == [
                "9071000002030000",
                compact("90AF000020 FF0306E47DFBC50087C4D8A78E88E62DE1E8BE457AA477C707E2F0874916A8B1 00"),
                "908D00001F030000000A00006B5E6804909962FC4E3FF5522CF0F8436C0C53315B9C73AA00",
                "90770000010000",
                compact("90AF000020 BE7D45753F2CAB85F34BC60CE58B940763FE969658A532DF6D95EA2773F6E991 00"),
                "908D000019010E0000120000FF0506E1050080828300000000000000000000",
                "90C4000029022CF362B7BF4311FF3BE1DAA295E8C68DE09050560D19B9E16C2393AE9CD1FAC75D0CE20BCD1D06E600",
                "90C400002900C0EB4DEEFEDDF0B513A03A95A75491818580503190D4D05053FF75668A01D6FDA6610234BDED643200",
            ])
    }

    @Test("Table 7's answer parses into its SDM settings, and they encode back to the same bytes")
    func fileSettingsOfTable7() throws {
        let answer = bytes("0040EEEE000100D1FE001F00004400004400002000006A0000")
        let settings = try NTAG424FileSettings(getFileSettingsAnswer: answer)
        #expect(settings.commMode == .plain)
        #expect(settings.accessRights == DESFireAccessRights(rawValue: 0xEEEE))
        #expect(settings.size == 256)
        let sdm = try #require(settings.sdm)
        #expect(sdm.mirrorsUID && sdm.mirrorsReadCounter && sdm.readCounterLimit == nil)
        #expect(sdm.metaReadKey == 0 && sdm.fileReadKey == 0 && sdm.counterRetrievalKey == 0xE)
        #expect(sdm.piccDataOffset == 0x1F && sdm.macInputOffset == 0x44 && sdm.macOffset == 0x6A)
        #expect(sdm.encryptedFileData?.offset == 0x44 && sdm.encryptedFileData?.length == 0x20)
        #expect(settings.changeFileSettingsData == Array(answer[1...3]) + Array(answer[7...]))
    }

    @Test("plain mirrors, a read-counter limit and no SDM: encoded and parsed back alike")
    func fileSettingsRoundTrip() throws {
        let layouts: [NTAG424FileSettings] = [
            NTAG424FileSettings(commMode: .enciphered, accessRights: DESFireAccessRights(rawValue: 0x3030), size: 128),
            NTAG424FileSettings(
                commMode: .plain, accessRights: DESFireAccessRights(rawValue: 0xE0EE), size: 256,
                sdm: NTAG424SDMSettings(
                    mirrorsUID: true, mirrorsReadCounter: true, metaReadKey: 0xE,
                    fileReadKey: 0xF, counterRetrievalKey: 0xE, uidOffset: 0x10,
                    readCounterOffset: 0x30)),
            NTAG424FileSettings(
                commMode: .mac, accessRights: DESFireAccessRights(rawValue: 0xE000), size: 256,
                sdm: NTAG424SDMSettings(
                    metaReadKey: 1, fileReadKey: 2, piccDataOffset: 0x20, macInputOffset: 0x20,
                    macOffset: 0x60, readCounterLimit: 100_000)),
        ]
        for settings in layouts {
            let answer =
                [0x00] + settings.changeFileSettingsData.prefix(3)
                + NTAG424Client.littleEndian24(Int(settings.size ?? 0))
                + settings.changeFileSettingsData.dropFirst(3)
            #expect(try NTAG424FileSettings(getFileSettingsAnswer: answer) == settings, "\(settings)")
        }
    }

    @Test(
        "short, overlong and inconsistent settings answers are typed errors",
        arguments: [
            "", "0000EEEE0001", "0100EEEE000100", "0002EEEE000100", "0040EEEE000100", "0040EEEE000100C1FE00",
            "0040EEEE000100C1FE001F00", "0000EEEE00010000", "0040EEEE000100C1DE001F0000",
        ])
    func malformedSettings(_ hex: String) {
        #expect(throws: NTAG424Error.self) {
            try NTAG424FileSettings(getFileSettingsAnswer: hex.isEmpty ? [] : bytes(hex))
        }
    }

    @Test("LRP mode is refused before anything is sent; key numbers above 4 too")
    func refusals() async throws {
        let card = ScriptedDESFireChannel([])
        let tag = NTAG424Client(channel: card)
        await #expect(throws: NTAG424Error.lrpNotSupported) { try await tag.setConfiguration(.lrpMode) }
        await #expect(throws: NTAG424Error.invalidArgument("NTAG 424 DNA has keys 0 to 4, not 5")) {
            try await tag.authenticate(keyNumber: 5, key: Self.zeroKey)
        }
        await #expect(throws: NTAG424Error.notAuthenticated(instruction: .getCardUID)) { try await tag.getCardUID() }
        await #expect(throws: NTAG424Error.self) {
            try await tag.changeFileSettings(.proprietary, to: Self.table18Settings)
        }
        #expect(await card.sent.isEmpty)
    }

    @Test("a tampered answer MAC closes the session with the instruction named")
    func tamperedAnswerClosesTheSession() async throws {
        let card = ScriptedDESFireChannel([
            "A04C124213C186F22399D33AC2A30215 91AF",
            "3FA64DB5446D1F34CD6EA311167F5E4985B89690C04A05F17FA7AB2F08120663 9100",
            "FC222E5F7A542453 9100",
        ])
        let tag = NTAG424Client(channel: card, randomBytes: fixedRandom("13C5DB8A5930439FC3DEF9A4C675360F"))
        try await tag.authenticate(keyNumber: 0, key: Self.zeroKey)
        await #expect {
            try await tag.writeData(.ndef, data: EV2SecureMessagingVectorTests.ndefFile, mode: .enciphered)
        } throws: { error in
            guard case NTAG424Error.secureMessaging(.integrityCheckFailed(let instruction, _, _)) = error else {
                return false
            }
            return instruction == .writeData
        }
        #expect(await !tag.isAuthenticated)
    }

    @Test("an error status of the card is typed and closes the session")
    func cardStatusClosesTheSession() async throws {
        let card = ScriptedDESFireChannel([
            "A04C124213C186F22399D33AC2A30215 91AF",
            "3FA64DB5446D1F34CD6EA311167F5E4985B89690C04A05F17FA7AB2F08120663 9100",
            "919D",
        ])
        let tag = NTAG424Client(channel: card, randomBytes: fixedRandom("13C5DB8A5930439FC3DEF9A4C675360F"))
        try await tag.authenticate(keyNumber: 0, key: Self.zeroKey)
        await #expect(throws: NTAG424Error.secureMessaging(.cardStatus(.permissionDenied, instruction: .getCardUID))) {
            try await tag.getCardUID()
        }
        #expect(await !tag.isAuthenticated)
    }
}

/// RndA values handed out in order (the client asks once per authentication).
final class RandomScript: Sendable {
    private let values: Mutex<[[UInt8]]>

    init(_ hex: [String]) { values = Mutex(hex.map { bytes($0) }) }

    func next() -> [UInt8] { values.withLock { $0.isEmpty ? [] : $0.removeFirst() } }
}
