import CardFlow
import CardFlowCrypto
import Testing

@testable import CardFlowDESFire

/// Reference §6.3 and §6.4: three-pass authentication replayed byte for byte.
@Suite("DESFire authentication vectors")
struct AuthenticationVectorTests {
    struct Vector: Sendable, CustomStringConvertible {
        let name: String
        let type: DESFireKeyType
        let key: String
        let method: DESFireAuthenticationMethod
        let challenge: String
        let rndA: String
        let token: String
        let answer: String
        let sessionKey: String
        var description: String { name }
    }

    static let vectors: [Vector] = [
        Vector(
            name: "AES zero key (Elmü)", type: .aes, key: "00000000000000000000000000000000", method: .automatic,
            challenge: "B969FDFE56FD91FC9DE6F6F213B8FD1E", rndA: "F44B26F5686F3A391CD38EBD10772281",
            token: "36AAD7DF6E436BA08D18613830A70D5AD43E3D3F4A8D47541EEE623A934E4774",
            answer: "800DB680BC146BD121D6578F2D2E2059", sessionKey: "F44B26F5C05DDD7110772281C4D066E8"),
        Vector(
            name: "AES non-zero key (Elmü)", type: .aes, key: "00102030405060708090A0B0B0A09080", method: .automatic,
            challenge: "CCC8316C2B2613FE9A189BAC9CC89D03", rndA: "C2A1E47B96A5589FAAE90C03FE6D00A7",
            token: "C02E061E72E17726489CAEEC997C523758BF863EFE7671C55B4665D06ACCD97B",
            answer: "72ACCC0BDEA482B53185BB5AD0086246", sessionKey: "C2A1E47B27104712FE6D00A71177A19B"),
        Vector(
            name: "ISO DES zero key (proxmark3 #2961)", type: .des, key: "0000000000000000", method: .automatic,
            challenge: "83B8794092327259", rndA: "0102030405060708", token: "CC4506665C229B49BBD7B67113A942F3",
            answer: "03FB11800B820495", sessionKey: "0102030499D2F4FF"),
        Vector(
            name: "ISO DES zero key (Elmü)", type: .des, key: "0000000000000000", method: .iso,
            challenge: "5D994CE085F24089", rndA: "849B36C5F8BF4A09", token: "21D0AD5F2FD97454A746CC80567F1B1C",
            answer: "913C6DED84221C41", sessionKey: "849B36C54FD1B759"),
        Vector(
            name: "ISO DES zero key (RevK)", type: .des, key: "0000000000000000", method: .iso,
            challenge: "C327E0B3AE784F04", rndA: "9F02178326DDE5A2", token: "DCC7FB9A261C7DFC012014A92BBBCDCB",
            answer: "75FDA7DC100712A4", sessionKey: "9F0217838A9D09A4"),
        Vector(
            name: "ISO 2K3DES (Elmü)", type: .twoKey3DES, key: "00102031405060708090A0B0B0A09080", method: .iso,
            challenge: "B29557992615 5AE3", rndA: "530E3D90F7A201C4", token: "70F349740C945DAE159BA9FEDBCC461A",
            answer: "B8FD7FE56B241FC4", sessionKey: "530E3D90BCD82997F7A201C447332DAF"),
        Vector(
            name: "ISO 3K3DES zero key (Elmü)", type: .threeKey3DES, key: String(repeating: "00", count: 24),
            method: .iso,
            challenge: "BC1C570BC948156187132364E4DCE176", rndA: "36C5F8BF4A09AC239E8DA0C73251D4AB",
            token: "DDDC9A77597F03A40C7FAA362F45A8EADBE46A115D98198CBF36A6E51B39D87C",
            answer: "7244D935ED9A1306CD8C841A7C1DE39A", sessionKey: "36C5F8BF316E6D76AC239E8DF925BA303251D4AB653656A2"),
        Vector(
            name: "legacy DES zero key (proxmark3 PR #3638)", type: .des, key: "0000000000000000", method: .legacy,
            challenge: "DF6AB29AAE46BA27", rndA: "A0A1A2A3A4A5A6A7", token: "05EEC31F1E6A0CC31FEF8398A6621370",
            answer: "26ACED3C771EF9A0", sessionKey: "A0A1A2A3CCF53270"),
        Vector(
            name: "legacy 2K3DES non-weak key", type: .twoKey3DES, key: "00112233445566778899AABBCCDDEEFF",
            method: .legacy,
            challenge: "4092AAE468888787", rndA: "849B36C5F8BF4A09", token: "8BA4C69FE691D4E6AA633E4EE63ACEFC",
            answer: "B686C1D912240EC2", sessionKey: "849B36C54FD1B759F8BF4A0942A8B8E1"),
        Vector(
            name: "legacy DES non-weak key", type: .des, key: "0123456789ABCDEF", method: .legacy,
            challenge: "0B42D1911C312D2C", rndA: "849B36C5F8BF4A09", token: "8F31B0FF2A4F5485ACFEDEA479A48761",
            answer: "39080C85BCA639DD", sessionKey: "849B36C54FD1B759"),
    ]

    @Test("authentication replays the vector", arguments: vectors)
    func replay(_ vector: Vector) async throws {
        let channel = ScriptedDESFireChannel([compact(vector.challenge) + "91AF", compact(vector.answer) + "9100"])
        let client = DESFireClient(channel: channel, randomBytes: fixedRandom(vector.rndA))
        let key = try DESFireKey(type: vector.type, hex: vector.key)
        try await client.authenticate(keyNumber: 0, key: key, method: vector.method)
        let sent = await channel.sentHex
        let ins: String =
            switch try vector.method.command(for: key) {
            case .authenticateLegacy: "0A"
            case .authenticateAES: "AA"
            default: "1A"
            }
        #expect(sent[0] == "90\(ins)0000010000")
        let token = compact(vector.token)
        #expect(sent[1] == "90AF0000" + [UInt8(token.count / 2)].hexString + token + "00")
        let cipher = try #require(await client.sessionKeyCipher)
        let sessionKey = (cipher as? AES128Cipher)?.key ?? (cipher as? TripleDESCipher)?.key ?? []
        #expect(sessionKey.hexString == compact(vector.sessionKey))
        #expect(await client.isAuthenticated)
        #expect(await client.sessionIV == [UInt8](repeating: 0, count: cipher.blockSize))
    }

    @Test("a wrong RndA' is an authentication failure and leaves no session")
    func wrongAnswer() async throws {
        let channel = ScriptedDESFireChannel([
            "B969FDFE56FD91FC9DE6F6F213B8FD1E91AF", "800DB680BC146BD121D6578F2D2E205891 00",
        ])
        let client = DESFireClient(channel: channel, randomBytes: fixedRandom("F44B26F5686F3A391CD38EBD10772281"))
        await #expect(
            throws: DESFireError.authenticationFailed(keyNumber: 0, reason: "the card's RndA' does not match")
        ) {
            try await client.authenticate(keyNumber: 0, key: .defaultAES)
        }
        #expect(await !client.isAuthenticated)
    }

    @Test("AE at the second step is a typed card status")
    func cardRefuses() async throws {
        let channel = ScriptedDESFireChannel(["B969FDFE56FD91FC9DE6F6F213B8FD1E91AF", "91AE"])
        let client = DESFireClient(channel: channel, randomBytes: fixedRandom("F44B26F5686F3A391CD38EBD10772281"))
        await #expect(throws: DESFireError.cardStatus(.authenticationError, command: .authenticateAES)) {
            try await client.authenticate(keyNumber: 0, key: .defaultAES)
        }
    }

    @Test("40 at the first step is no such key; a short challenge is malformed")
    func firstStepErrors() async throws {
        let noKey = DESFireClient(channel: ScriptedDESFireChannel(["9140"]))
        await #expect(throws: DESFireError.cardStatus(.noSuchKey, command: .authenticateAES)) {
            try await noKey.authenticate(keyNumber: 5, key: .defaultAES)
        }
        let short = DESFireClient(channel: ScriptedDESFireChannel(["0102030491AF"]))
        await #expect(throws: DESFireError.self) { try await short.authenticate(keyNumber: 0, key: .defaultAES) }
        let aesLegacy = DESFireClient(channel: ScriptedDESFireChannel([]))
        await #expect(throws: DESFireError.self) {
            try await aesLegacy.authenticate(keyNumber: 0, key: .defaultAES, method: .legacy)
        }
    }
}
