import CardFlow
import CardFlowCrypto
import Testing

@testable import CardFlowDESFire

/// The two transactions of AN12196's personalization example driven through the state machine,
/// from the authentication to the last command: every command compared with the published
/// C-APDU, every published R-APDU fed back, the counter carried by the code alone.
@Suite("EV2 transactions replayed (AN12196)")
struct EV2TransactionReplayTests {
    static let zeroKey = try! DESFireKey(type: .aes, bytes: [UInt8](repeating: 0, count: 16))

    @Test("Tables 14, 17, 18: AuthenticateEV2First, WriteData and ChangeFileSettings in CommMode.Full")
    func personalizeNDEFFile() throws {
        // AN12196 rev. 2.0 §5.6 Table 14, §5.8.2 Table 17, §5.9 Table 18 (rev. 1.x §6.6, §6.8.2, §6.9).
        let part1 = try EV2Authentication.first(
            keyNumber: 0, key: Self.zeroKey, rndA: bytes("13C5DB8A5930439FC3DEF9A4C675360F"))
        #expect(part1.command.encoded() == bytes("9071000002000000"))
        let part2 = try part1.respond(to: ResponseAPDU(hex: "A04C124213C186F22399D33AC2A30215 91AF"))
        #expect(
            part2.command.encoded()
                == bytes("90AF000020 35C3E05A752E0144BAC0DE51C1F22C56B34408A23D8AEA266CAB947EA8E0118D 00"))
        var session = try part2.finish(
            with: ResponseAPDU(hex: "3FA64DB5446D1F34CD6EA311167F5E4985B89690C04A05F17FA7AB2F08120663 9100"))

        let write = try session.command(
            .writeData, header: bytes("02 000000 800000"),
            data: EV2SecureMessagingVectorTests.ndefFile, mode: .enciphered)
        #expect(
            write.encoded()
                == bytes(
                    """
                    908D00009F02000000800000421C73A27D827658AF481FDFF20A5025B559D0E3AA21E58D347F343CFFC768BFE596C706BC00F2\
                    176781D4B0242642A0FF5A42C461AAF894D9A1284B8C76BCFA658ACD40555D362E08DB15CF421B51283F9064BCBE20E96CAE54\
                    5B407C9D651A3315B27373772E5DA2367D2064AE054AF996C6F1F669170FA88CE8C4E3A4A7BBBEF0FD971FF532C3A802AF7456\
                    60F2B4D1D9A8499661EBF300
                    """))
        _ = try session.verifyResponse(ResponseAPDU(hex: "FC222E5F7A542452 9100"), to: .writeData, mode: .enciphered)

        let change = try session.command(
            .changeFileSettings, header: [0x02], data: bytes("4000E0C1F121200000430000430000"),
            mode: .enciphered)
        #expect(change.encoded() == bytes("905F0000190261B6D97903566E84C3AE5274467E89EAD799B7C1A0EF7A0400"))
        _ = try session.verifyResponse(
            ResponseAPDU(hex: "57BFF87B1241E93D 9100"), to: .changeFileSettings, mode: .enciphered)
        #expect(session.commandCounter == 2)
    }

    @Test("Tables 19, 21, 23, 24, 25, 26: key 3, WriteData, NonFirst with key 0, plain WriteData, ChangeKey ×2")
    func changeKeys() throws {
        // AN12196 rev. 2.0 §5.10 Table 19, Table 21, §5.14 Table 23, Table 24, §5.16 Tables 25 and 26
        // (rev. 1.x §6.10–§6.16); the ISOSelectFile of Table 22 between them leaves the session alone.
        let first = try EV2Authentication.first(
            keyNumber: 3, key: Self.zeroKey, rndA: bytes("B98F4C50CF1C2E084FD150E33992B048"))
        let firstPart2 = try first.respond(to: ResponseAPDU(hex: "B875CEB0E66A6C5CD00898DC371F92D1 91AF"))
        #expect(
            firstPart2.command.encoded()
                == bytes("90AF000020 FF0306E47DFBC50087C4D8A78E88E62DE1E8BE457AA477C707E2F0874916A8B1 00"))
        var session = try firstPart2.finish(
            with: ResponseAPDU(hex: "0CC9A8094A8EEA683ECAAC5C7BF20584206D0608D477110FC6B3D5D3F65C3A6A 9100"))

        let write = try session.command(
            .writeData, header: bytes("03 000000 0A0000"), data: Array(1...10), mode: .enciphered)
        #expect(write.encoded() == bytes("908D00001F030000000A00006B5E6804909962FC4E3FF5522CF0F8436C0C53315B9C73AA00"))
        _ = try session.verifyResponse(ResponseAPDU(hex: "C26D236E4A7C046D 9100"), to: .writeData, mode: .enciphered)

        let nonFirst = try EV2Authentication.nonFirst(
            keyNumber: 0, key: Self.zeroKey, rndA: bytes("60BE759EDA560250AC57CDDC11743CF6"),
            continuing: session)
        #expect(nonFirst.command.encoded() == bytes("90770000010000"))
        let nonFirstPart2 = try nonFirst.respond(to: ResponseAPDU(hex: "A6A2B3C572D06C097BB8DB70463E22DC 91AF"))
        #expect(
            nonFirstPart2.command.encoded()
                == bytes("90AF000020 BE7D45753F2CAB85F34BC60CE58B940763FE969658A532DF6D95EA2773F6E991 00"))
        session = try nonFirstPart2.finish(with: ResponseAPDU(hex: "B888349C24B315EAB5B589E279C8263E 9100"))
        #expect(session.commandCounter == 1)

        let plain = try session.command(
            .writeData, header: bytes("01 0E0000 120000"),
            data: bytes("FF0506E10500808283000000000000000000"), mode: .plain)
        #expect(plain.encoded() == bytes("908D000019010E0000120000FF0506E1050080828300000000000000000000"))
        _ = try session.verifyResponse(ResponseAPDU(hex: "9100"), to: .writeData, mode: .plain)

        let key2 = try EV2ChangeKey(
            keyNumber: 2, newKey: DESFireKey(type: .aes, hex: "F3847D627727ED3BC9C4CC050489B966", version: 1),
            oldKey: Self.zeroKey, session: session)
        #expect(
            try key2.command(in: session).encoded()
                == bytes(
                    """
                    90C4000029022CF362B7BF4311FF3BE1DAA295E8C68DE09050560D19B9E16C2393AE9CD1FAC75D0CE20BCD1D06E600
                    """))
        session = try #require(try key2.verifyResponse(ResponseAPDU(hex: "203BB55D1089D587 9100"), in: session))

        let key0 = try EV2ChangeKey(
            keyNumber: 0, newKey: DESFireKey(type: .aes, hex: "5004BF991F408672B1EF00F08F9E8647", version: 1),
            session: session)
        #expect(
            try key0.command(in: session).encoded()
                == bytes(
                    """
                    90C400002900C0EB4DEEFEDDF0B513A03A95A75491818580503190D4D05053FF75668A01D6FDA6610234BDED643200
                    """))
        #expect(try key0.verifyResponse(ResponseAPDU(hex: "9100"), in: session) == nil)
    }
}
