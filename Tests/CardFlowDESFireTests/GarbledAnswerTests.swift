import CardFlow
import CardFlowSimulator
import Testing

@testable import CardFlowDESFire

/// Random answers to every command, with and without a session: typed errors or values, never a trap.
@Suite("DESFire garbled answers")
struct GarbledAnswerTests {
    static func answers(seed: UInt64) -> [String] {
        var generator = SeededRandom(seed: seed)
        return (0..<12).map { _ in
            let length = Int.random(in: 0...40, using: &generator)
            let data = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let status: [UInt8] =
                switch Int.random(in: 0..<6, using: &generator) {
                case 0: [0x91, 0xAF]
                case 1: [0x6A, 0x82]
                case 2: [0x91, UInt8.random(in: 0...255, using: &generator)]
                default: [0x91, 0x00]
                }
            return (data + status).hexString
        }
    }

    @Test("random answers never trap", arguments: Array(UInt64(1)...60))
    func random(_ seed: UInt64) async throws {
        for session in [nil, DESFireKeyType.aes, .des, .threeKey3DES] {
            for legacy in session == .des ? [false, true] : [false] {
                let channel = ScriptedDESFireChannel(Self.answers(seed: seed &* 31 &+ UInt64(legacy ? 7 : 0)))
                let client = DESFireClient(channel: channel, randomBytes: { [UInt8](repeating: 0x5A, count: $0) })
                func install() async throws {
                    guard let session else { return }
                    try await client.installSession(
                        keyNumber: 0, keyType: session,
                        sessionKey: [UInt8](
                            repeating: 0x3C, count: session == .threeKey3DES ? 24 : (session == .des ? 8 : 16)),
                        legacy: legacy, application: DESFireApplicationID(validated: 0x010203))
                    await client.cacheFileSettings(
                        DESFireFileSettings(
                            kind: .standard(size: 64), commMode: .enciphered,
                            accessRights: DESFireAccessRights(rawValue: 0)), file: 1)
                }
                let operations: [@Sendable (DESFireClient) async throws -> Void] = [
                    { _ = try await $0.getVersion() }, { _ = try await $0.getFreeMemory() },
                    { _ = try await $0.getApplicationIDs() },
                    { _ = try await $0.getDFNames() }, { _ = try await $0.getKeySettings() },
                    { _ = try await $0.getFileIDs() },
                    { _ = try await $0.getISOFileIDs() }, { _ = try await $0.getFileSettings(file: 1) },
                    { _ = try await $0.readData(file: 1) }, { _ = try await $0.readData(file: 1, length: 10) },
                    { _ = try await $0.getValue(file: 1, commMode: .enciphered) }, { _ = try await $0.getCardUID() },
                    { _ = try await $0.readRecords(file: 1, commMode: .mac) },
                    { _ = try await $0.getKeyVersion(keyNumber: 0) },
                    { try await $0.authenticate(keyNumber: 0, key: .defaultAES) },
                    { try await $0.authenticate(keyNumber: 0, key: .defaultDES, method: .legacy) },
                ]
                for operation in operations {
                    try await install()
                    do { try await operation(client) } catch is DESFireError {} catch is ScriptedDESFireChannel
                        .ScriptExhausted
                    {}
                }
            }
        }
    }
}
