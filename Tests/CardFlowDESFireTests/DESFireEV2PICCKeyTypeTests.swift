import CardFlow
import CardFlowSimulator
import Testing

@testable import CardFlowDESFire

/// ChangeKey in an EV2 session for a DES-family key: the only place it happens is the PICC master
/// key, switched from AES to 2K3DES or 3K3DES through the key-type bits of KeyNo. The session
/// ends; the new key then authenticates (ISO) and reports the version from its parity bits.
@Suite("DESFire EV2 ChangeKey to DES-family PICC master keys, end to end")
struct DESFireEV2PICCKeyTypeTests {
    @Test(
        "AES PICC master key → DES-family key over EV2, then ISO authentication with it",
        arguments: [
            ("2k3des", "00112233445566778899AABBCCDDEEFF", UInt8(0x2A)),
            ("3k3des", "00112233445566778899AABBCCDDEEFF0123456789ABCDEF", UInt8(0x07)),
            ("des", "0123456789ABCDEF", UInt8(0x11)),
        ])
    func switchPICCMasterKey(type: String, hex: String, version: UInt8) async throws {
        let (reader, _) = try await DESFireEndToEndTests.reader()
        try await reader.withSession(policy: DESFireEndToEndTests.policy) { session in
            let client = DESFireClient(channel: session)
            try await DESFireEV2Fixture.prepare(client)
            let keyType = try #require(DESFireKeyType(name: type))
            let newKey = try DESFireKey(type: keyType, hex: hex, version: version)
            try await client.selectApplication(.picc)
            try await client.authenticate(keyNumber: 0, key: try DESFireEV2Fixture.piccKey(), method: .ev2)
            try await client.changeKey(keyNumber: 0, to: newKey)
            #expect(try await client.getKeyVersion(keyNumber: 0) == version)
            try await client.authenticate(keyNumber: 0, key: newKey)
            #expect(try await client.getKeySettings().keyType == (keyType == .threeKey3DES ? .threeKey3DES : .des))
            // The old AES key no longer authenticates.
            await #expect(throws: DESFireError.self) {
                try await client.authenticate(keyNumber: 0, key: try DESFireEV2Fixture.piccKey(), method: .ev2)
            }
        }
    }
}
