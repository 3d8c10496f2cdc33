import CardFlow
import CardFlowSimulator

@testable import CardFlowDESFire

/// Wraps a channel and flips one bit of the data of the `n`-th answer to instruction `ins`
/// (a forged or garbled answer), counting from 1.
actor AnswerTamperingChannel: CardChannel {
    let inner: any CardChannel
    let instruction: UInt8
    let occurrence: Int
    private var seen = 0

    init(_ inner: any CardChannel, instruction: UInt8, occurrence: Int = 1) {
        self.inner = inner
        self.instruction = instruction
        self.occurrence = occurrence
    }

    func transmit(_ command: CommandAPDU) async throws -> ResponseAPDU {
        let response = try await inner.transmit(command)
        guard command.ins == instruction else { return response }
        seen += 1
        guard seen == occurrence, !response.data.isEmpty else { return response }
        var data = response.data
        data[data.count - 1] ^= 0x01
        return ResponseAPDU(data: data, sw1: response.sw1, sw2: response.sw2)
    }
}

/// Keys and setup shared by the EV2 tests: an AES application `564532` with three non-zero keys.
enum DESFireEV2Fixture {
    static func aid() throws -> DESFireApplicationID { try DESFireApplicationID(0x56_4532) }

    static func aesKey(_ hex: String, version: UInt8) throws -> DESFireKey {
        try DESFireKey(type: .aes, hex: hex, version: version)
    }

    static func piccKey() throws -> DESFireKey { try aesKey("0F1E2D3C4B5A69788796A5B4C3D2E1F0", version: 1) }
    static func masterKey() throws -> DESFireKey { try aesKey("00112233445566778899AABBCCDDEEFF", version: 3) }
    static func dataKey() throws -> DESFireKey { try aesKey("F0E1D2C3B4A5968778695A4B3C2D1E0F", version: 5) }
    static func transactionMACKey() throws -> DESFireKey { try aesKey("A0A1A2A3A4A5A6A7A8A9AAABACADAEAF", version: 9) }
    static func zeroAES() throws -> DESFireKey { try DESFireKey(type: .aes, bytes: [UInt8](repeating: 0, count: 16)) }

    /// Formats the card, makes the PICC master key AES and creates the application with key 0
    /// `masterKey` and key 1 `dataKey`, through EV2 sessions. Leaves an EV2 session with key 0 of
    /// the application open.
    static func prepare(_ client: DESFireClient) async throws {
        try await client.selectApplication(.picc)
        try await client.authenticate(keyNumber: 0, key: .defaultDES)
        try await client.formatPICC()
        try await client.changeKey(keyNumber: 0, to: try piccKey())
        try await client.authenticate(keyNumber: 0, key: try piccKey(), method: .ev2)
        try await client.createApplication(try aid(), settings: 0x0F, keyCount: 3, keyType: .aes)
        try await client.selectApplication(try aid())
        try await client.authenticateEV2First(keyNumber: 0, key: try zeroAES())
        try await client.changeKey(keyNumber: 0, to: try masterKey())
        try await client.authenticateEV2First(keyNumber: 0, key: try masterKey())
        try await client.changeKey(keyNumber: 1, to: try dataKey(), oldKey: try zeroAES())
    }
}
