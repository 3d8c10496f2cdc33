import CardFlow
import CardFlowCrypto
import Testing

@testable import CardFlowDESFire

/// Reference §6.5–§6.7: CMAC chains, ChangeKey cryptograms, DES → AES, enciphered file I/O.
@Suite("DESFire secure messaging vectors")
struct SecureMessagingVectorTests {
    static let app = DESFireApplicationID(validated: 0x00DE16)

    @Test(
        "Elmü's DES session CMAC chain: GetVersion, FormatPICC, CreateApplication ×4, GetApplicationIDs, DeleteApplication"
    )
    func elmuChain() async throws {
        let channel = ScriptedDESFireChannel(
            [
                "5D994CE085F2408991AF", "913C6DED84221C419100",
                "0401010100 1A0591AF", "040101010 41A0591AF", "04063F7263348 0BA4519E3204913 CDC810BAFA401759 9100",
                "9C2C813A065C45F7 9100",
                "0A1379B01D85AD47 9100", "5D73AE5287A1BBE4 9100", "3B68D72A3BE0D20C 9100", "F11AC0738EF83878 9100",
                "16DE0024DE0016AE00CCBBAA 2739154E2630D650 9100",
                "A9AF19052292F662 9100",
                "16DE0024DE0016AE00 520E51E00AF06D5E 9100",
            ].map(compact))
        let client = DESFireClient(channel: channel, randomBytes: fixedRandom("849B36C5F8BF4A09"))
        try await client.authenticate(keyNumber: 0, key: .defaultDES, method: .iso)
        let version = try await client.getVersion()
        #expect(version.uid.hexString == "04063F72633480")
        #expect(version.storageSize == 8192)
        try await client.formatPICC()
        try await client.createApplication(try DESFireApplicationID(hex: "00DE16"), keyCount: 2, keyType: .des)
        try await client.createApplication(try DESFireApplicationID(hex: "00DE24"), keyCount: 2, keyType: .threeKey3DES)
        try await client.createApplication(try DESFireApplicationID(hex: "00AE16"), keyCount: 2, keyType: .aes)
        try await client.createApplication(try DESFireApplicationID(hex: "AABBCC"), keyCount: 1, keyType: .des)
        let ids = try await client.getApplicationIDs()
        #expect(ids.map(\.description) == ["00DE16", "00DE24", "00AE16", "AABBCC"])
        try await client.deleteApplication(try DESFireApplicationID(hex: "AABBCC"))
        #expect(try await client.getApplicationIDs().count == 3)
        let sent = await channel.sentHex
        #expect(sent[2] == "9060000000" && sent[3] == "90AF000000")
        #expect(sent[5] == "90FC000000")
        #expect(sent[6] == "90CA00000516DE000F0200")
        #expect(sent[7] == "90CA00000524DE000F4200")
        #expect(sent[8] == "90CA00000516AE000F8200")
        #expect(sent[11] == "90DA000003CCBBAA00")
        #expect(await channel.remaining == 0)
        #expect(await client.isAuthenticated)
    }

    @Test("FormatPICC after ISO DES authentication: RX CMAC verifies (proxmark3 #2961)")
    func formatAfterISO() async throws {
        let channel = ScriptedDESFireChannel(["83B879409232725991AF", "03FB11800B8204959100", "0A2819F80BA056A09100"])
        let client = DESFireClient(channel: channel, randomBytes: fixedRandom("0102030405060708"))
        try await client.authenticate(keyNumber: 0, key: .defaultDES)
        try await client.formatPICC()
        #expect(await client.sessionIV?.hexString == "0A2819F80BA056A0")
    }

    @Test("AES GetKeyVersion: version byte and CMAC")
    func aesKeyVersion() async throws {
        let channel = ScriptedDESFireChannel(["108A8FA36F55CD210D9100"])
        let client = DESFireClient(channel: channel)
        try await client.installSession(
            keyNumber: 0, keyType: .aes, sessionKey: bytes("90F7A20191036845EC63DECD544B9931"))
        #expect(try await client.getKeyVersion(keyNumber: 0) == 0x10)
        #expect(await client.sessionIV?.hexString == "8A8FA36F55CD210DD8054658AC70D99A")
    }

    @Test("a CMAC mismatch is an integrity error and drops the session")
    func cmacMismatch() async throws {
        let channel = ScriptedDESFireChannel(["108A8FA36F55CD210E9100"])
        let client = DESFireClient(channel: channel)
        try await client.installSession(
            keyNumber: 0, keyType: .aes, sessionKey: bytes("90F7A20191036845EC63DECD544B9931"))
        await #expect(throws: DESFireError.integrityCheckFailed(command: .getKeyVersion, reason: "CMAC mismatch")) {
            try await client.getKeyVersion(keyNumber: 0)
        }
        #expect(await !client.isAuthenticated)
    }

    @Test("ChangeKeySettings in an EV1 DES session")
    func changeKeySettings() async throws {
        let channel = ScriptedDESFireChannel(["A62837837427 0ACD9100"].map(compact))
        let client = DESFireClient(channel: channel)
        try await client.installSession(
            keyNumber: 0, keyType: .des, sessionKey: bytes("48EC62DE3A3CFE62"), iv: bytes("25DD8D7731B1CFD5"),
            application: Self.app)
        try await client.changeKeySettings(0x0D)
        #expect(await channel.sentHex == ["905400000827882805FC3FD49D00"])
    }

    struct ChangeKeyVector: Sendable, CustomStringConvertible {
        let name: String
        let sessionType: DESFireKeyType
        let sessionKey: String
        var iv: String? = nil
        var legacy = false
        var picc = false
        let keyNumber: UInt8
        let newType: DESFireKeyType
        let newKey: String
        let version: UInt8?
        var oldKey: DESFireKey? = nil
        let wire: String
        var answer = "9100"
        var description: String { name }
    }

    static let changeKeyVectors: [ChangeKeyVector] = [
        ChangeKeyVector(
            name: "AES same key", sessionType: .aes, sessionKey: "F44B26F5C05DDD7110772281C4D066E8", keyNumber: 0,
            newType: .aes, newKey: "00102030405060708090A0B0B0A09080", version: 0x10,
            wire: "90C4000021 00 E9F85E219496C2B58C1090DC3935FAE9E840CF61B383D9531946256B1F110C10 00"),
        ChangeKeyVector(
            name: "AES same key, IV from a CMAC", sessionType: .aes, sessionKey: "90F7A20191036845EC63DECD544B9931",
            iv: "8A8FA36F55CD210DD8054658AC70D99A", keyNumber: 0, newType: .aes,
            newKey: String(repeating: "00", count: 16),
            version: 0, wire: "90C4000021 00 635375E4919F8AF2E9E86B1C1BA55B0C0807EAF484D7A7EF6E0C3084160F5A61 00"),
        ChangeKeyVector(
            name: "AES other key", sessionType: .aes, sessionKey: "C2A1E47BD8100044FE6D00A74D7AB17C", keyNumber: 1,
            newType: .aes, newKey: "00102030405060708090A0B0B0A09080", version: 0x10, oldKey: .defaultAES,
            wire: "90C4000021 01 E7ECCB6BD1CA64BC161A12B1C024F7143033 7408C8A87EACAB7A1FF18951FCA3 00",
            answer: "2128D3CD9C9ACFFF9100"),
        ChangeKeyVector(
            name: "2K3DES same key (EV1, DES session)", sessionType: .des, sessionKey: "C86CE25E4C647E56", keyNumber: 0,
            newType: .twoKey3DES, newKey: "00102031405060708090A0B0B0A09080", version: nil,
            wire: "90C4000019 00 BEDE0FC6ED347DCF0D51C717DF75D97D2C5A2BA6CAC7479D 00"),
        ChangeKeyVector(
            name: "DES session, other key to 2K3DES", sessionType: .des, sessionKey: "CAA674E8CAE8525E", keyNumber: 1,
            newType: .twoKey3DES, newKey: "00102031405060708090A0B0B0A09080", version: nil, oldKey: .defaultDES,
            wire: "90C4000019 01 4EB669E48DCA584749542E1BE89CB4C7845A38C57D19DE59 00", answer: "2EAD04DCF121E0FE9100"),
        ChangeKeyVector(
            name: "3K3DES same key", sessionType: .threeKey3DES,
            sessionKey: "36C5F8BF316E6D76AC239E8DF925BA303251D4AB653656A2",
            keyNumber: 0, newType: .threeKey3DES, newKey: "00102031405060708090A0B0B0A090807060504030201000",
            version: nil,
            wire: "90C4000021 00 F4F865F318CB9DE80B2B165145021F4F3AFEF1244FEA42FC997726FDE750741D 00"),
        ChangeKeyVector(
            name: "PICC DES → AES after ISO authentication", sessionType: .des, sessionKey: "9F0217838A9D09A4",
            picc: true,
            keyNumber: 0, newType: .aes, newKey: String(repeating: "00", count: 16), version: 1,
            wire: "90C4000019 80 61592DC40AD358951652D83831A273CCE3EA31341783C41E 00"),
        ChangeKeyVector(
            name: "PICC DES → AES after legacy authentication", sessionType: .des, sessionKey: "A0A1A2A3CCF53270",
            legacy: true,
            picc: true, keyNumber: 0, newType: .aes, newKey: String(repeating: "00", count: 16), version: 0,
            wire: "90C4000019 80 B6B143701E58F4B363044ECF9C0DBB1892BEAA143F3CB072 00"),
        ChangeKeyVector(
            name: "legacy same key", sessionType: .twoKey3DES, sessionKey: "849B36C54FD1B759F8BF4A0942A8B8E1",
            legacy: true,
            keyNumber: 0, newType: .twoKey3DES, newKey: "101112131415161718191A1B1C1D1E1F", version: nil,
            wire: "90C4000019 00 62D73CE8240036F291F899E2C33BC4DFC7A1BC3A37C9D18E 00"),
        ChangeKeyVector(
            name: "legacy other key", sessionType: .twoKey3DES, sessionKey: "849B36C54FD1B759F8BF4A0942A8B8E1",
            legacy: true,
            keyNumber: 1, newType: .twoKey3DES, newKey: "101112131415161718191A1B1C1D1E1F", version: nil,
            oldKey: try! DESFireKey(type: .twoKey3DES, bytes: [UInt8](repeating: 0, count: 16)),
            wire: "90C4000019 01 62D73CE8240036F291F899E2C33BC4DFF954522 8F0120425 00"),
    ]

    @Test("ChangeKey cryptogram", arguments: changeKeyVectors)
    func changeKey(_ vector: ChangeKeyVector) async throws {
        let channel = ScriptedDESFireChannel([vector.answer])
        let client = DESFireClient(channel: channel)
        try await client.installSession(
            keyNumber: 0, keyType: vector.sessionType, sessionKey: bytes(vector.sessionKey),
            iv: vector.iv.map(bytes), legacy: vector.legacy, application: vector.picc ? .picc : Self.app)
        let newKey = try DESFireKey(
            type: vector.newType, hex: vector.newKey, version: vector.newType == .aes ? vector.version : nil)
        try await client.changeKey(keyNumber: vector.keyNumber, to: newKey, oldKey: vector.oldKey)
        #expect(await channel.sentHex == [compact(vector.wire)])
        // Changing the authenticated key ends the session; another key keeps it.
        #expect(await client.isAuthenticated == (vector.keyNumber != 0))
    }

    @Test("legacy session: ChangeKeySettings, MACed WriteData, enciphered ReadData")
    func legacyFileIO() async throws {
        let channel = ScriptedDESFireChannel(["9100", "9100", "307FB4DF13900D5AB0544B98EE79959D9100"])
        let client = DESFireClient(channel: channel)
        try await client.installSession(
            keyNumber: 0, keyType: .twoKey3DES, sessionKey: bytes("849B36C54FD1B759F8BF4A0942A8B8E1"),
            legacy: true, application: Self.app)
        try await client.changeKeySettings(0x0F)
        try await client.writeData(file: 1, offset: 0, data: bytes("11223344"), commMode: .mac)
        let data = try await client.readData(file: 1, offset: 0, length: 8, commMode: .enciphered)
        #expect(data == bytes("0102030405060708"))
        let sent = await channel.sentHex
        #expect(sent[0] == "905400000826 80EFF58DD0D61900".filter { $0 != " " })
        #expect(sent[1] == "903D00000F01000000040000112233 44CD6EB7D300".filter { $0 != " " })
        #expect(sent[2] == "90BD00000701000000080000 00".filter { $0 != " " })
    }

    @Test("EV1 AES enciphered and MACed file I/O, GetCardUID, enciphered Credit (§6.7)")
    func ev1FileIO() async throws {
        let channel = ScriptedDESFireChannel([
            "1D9066F1355543419100",
            "000ED9AC84B3708A1D35503066AD13459100",
            "DFA8F6EF32F49D829100",
            "1122334471F5182083BC002D9100",
            "7CEEA87A3057B067928AB61C3ED1CE009100",
            "459B7FEB048EB0AC9100",
        ])
        let client = DESFireClient(channel: channel)
        try await client.installSession(
            keyNumber: 0, keyType: .aes, sessionKey: bytes("40E7D271626FFBD49C530E3D304F5B17"), application: Self.app)
        let onlyKey0 = DESFireAccessRights(rawValue: 0x0000)
        await client.cacheFileSettings(
            DESFireFileSettings(kind: .standard(size: 32), commMode: .enciphered, accessRights: onlyKey0), file: 7)
        await client.cacheFileSettings(
            DESFireFileSettings(kind: .standard(size: 32), commMode: .mac, accessRights: onlyKey0), file: 8)
        await client.cacheFileSettings(
            DESFireFileSettings(
                kind: .value(
                    lowerLimit: 0, upperLimit: 1000, limitedCreditValue: 0,
                    limitedCreditEnabled: false),
                commMode: .enciphered, accessRights: onlyKey0), file: 9)
        try await client.writeData(file: 7, data: bytes("00010203040506070809"))
        #expect(try await client.readData(file: 7, length: 10) == bytes("00010203040506070809"))
        try await client.writeData(file: 8, data: bytes("11223344"))
        #expect(try await client.readData(file: 8, length: 4) == bytes("11223344"))
        #expect(try await client.getCardUID() == bytes("04063F72633480"))
        try await client.credit(file: 9, amount: 100)
        let sent = await channel.sentHex
        #expect(
            sent
                == [
                    "903D00001707000000 0A0000 3C1F0B87BEF67EDE72E19080978E6CFD 00",
                    "90BD000007070000000A000000",
                    "903D0000130800000004000011223344 2633AC1560DB8C50 00",
                    "90BD000007080000000400 0000",
                    "9051000000",
                    "900C00001109 9E61C58C75154EA1681C2C6946658F2D 00",
                ].map(compact))
        #expect(await client.isAuthenticated)
    }
}
