import CardFlow
import Testing

@testable import CardFlowDESFire

/// Restoring selection and authentication after a reconnect; legacy plain exchanges.
@Suite("DESFire recovery and legacy plain messaging")
struct RecoveryTests {
    @Test("restoreAfterReconnect re-selects the application and re-authenticates with the last key")
    func restore() async throws {
        let channel = ScriptedDESFireChannel([
            "9100", "83B879409232725991AF", "03FB11800B8204959100",
            "9100", "83B879409232725991AF", "03FB11800B8204959100",
        ])
        let client = DESFireClient(channel: channel, randomBytes: fixedRandom("0102030405060708"))
        let aid = try DESFireApplicationID(hex: "010203")
        try await client.selectApplication(aid)
        try await client.authenticate(keyNumber: 0, key: .defaultDES)
        try await client.restoreAfterReconnect()
        let sent = await channel.sentHex
        #expect(sent[3] == "905A00000303020100")
        #expect(sent[4] == "901A0000010000")
        #expect(await client.isAuthenticated)
        #expect(await client.selectedApplication == aid)
    }

    @Test("a refused re-authentication leaves the client unauthenticated instead of failing the restoration")
    func restoreRefused() async throws {
        let channel = ScriptedDESFireChannel(["9100", "83B879409232725991AF", "03FB11800B8204959100", "9100", "91AE"])
        let client = DESFireClient(channel: channel, randomBytes: fixedRandom("0102030405060708"))
        try await client.selectApplication(.picc)
        try await client.authenticate(keyNumber: 0, key: .defaultDES)
        try await client.restoreAfterReconnect()
        #expect(await !client.isAuthenticated)
    }

    @Test("legacy sessions send and receive plain commands without MACs")
    func legacyPlain() async throws {
        let channel = ScriptedDESFireChannel(["DF6AB29AAE46BA2791AF", "26ACED3C771EF9A09100", "109100", "0F019100"])
        let client = DESFireClient(channel: channel, randomBytes: fixedRandom("A0A1A2A3A4A5A6A7"))
        try await client.authenticate(keyNumber: 0, key: .defaultDES, method: .legacy)
        #expect(try await client.getKeyVersion(keyNumber: 0) == 0x10)
        let settings = try await client.getKeySettings()
        #expect(settings.settings == 0x0F && settings.keyCount == 1 && settings.keyType == .des)
        #expect(await client.isAuthenticated)
    }

    @Test("GetCardUID needs a session")
    func uidNeedsSession() async throws {
        let client = DESFireClient(channel: ScriptedDESFireChannel([]))
        await #expect(throws: DESFireError.notAuthenticated(command: .getCardUID)) { try await client.getCardUID() }
    }

    @Test("random UIDs are 4 bytes starting with 08")
    func randomUID() {
        #expect(DESFireIdentity.isRandomUID([0x08, 1, 2, 3]))
        #expect(!DESFireIdentity.isRandomUID([0x04, 1, 2, 3, 4, 5, 6]))
    }
}
