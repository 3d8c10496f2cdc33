import CardFlow
import Foundation
import Testing

@testable import CardFlowTONCard

/// Secrets in failing commands, and loops whose length a card decides.
@Suite("TON client against a hostile card")
struct TONHostileCardTests {
    // MARK: Secrets in error JSON

    static let pin = "35353538"

    /// Every command that carries a secret, with the secret's hex.
    static func secretCommands() throws -> [(CommandAPDU, String)] {
        let activation = try VectorA.activation()
        let sault = [UInt8](repeating: 0x11, count: 32)
        let key = try [UInt8](hex: VectorA.hmacKey)
        let keyChunk: [UInt8] = Array(repeating: 0x5A, count: 20) + [0xC0, 0xFF, 0xEE]
        let recovery: [UInt8] = Array("my recovery words".utf8)
        return [
            (try TONProtectedCommand.make(.verifyPin, payload: try [UInt8](hex: pin), sault: sault, key: key), pin),
            (try TONCommands.verifyPassword(activation), VectorA.password),
            (
                try TONProtectedCommand.make(
                    .addKeyChunk, payload: [UInt8(keyChunk.count)] + keyChunk, sault: sault, key: key),
                keyChunk.hexString
            ),
            (
                try TONProtectedCommand.make(
                    .changeKeyChunk, p1: 1, payload: [UInt8(keyChunk.count)] + keyChunk, sault: sault, key: key),
                keyChunk.hexString
            ),
            (try TONCommands.addRecoveryDataPart(recovery, first: true), recovery.hexString),
            (TONCommands.generateSeed(pin: try TONPin("5558")), pin),
            (TONCommands.changePin(old: try TONPin("5558"), new: try TONPin("2468")), "32343638"),
        ]
    }

    /// The seed printed the failing APDU with its data; PINs, the activation password, key
    /// chunks and recovery data must not reach `--json` output.
    @Test func errorJSONHidesSecretsOfTheFailingCommand() throws {
        for (command, secret) in try Self.secretCommands() {
            let error = TONError.card(
                status: StatusWord(0x6F07), instruction: TONExchange.instruction(of: command), command: command)
            let json = error.json
            #expect(!json.uppercased().contains(secret.uppercased()), "\(json)")
            #expect(!json.uppercased().contains(String(secret.prefix(8)).uppercased()), "\(json)")
            // The header stays, so the failing instruction is still recognisable.
            #expect(json.contains([command.cla, command.ins, command.p1, command.p2].spacedHexString), "\(json)")
            #expect(!error.description.uppercased().contains(secret.uppercased()))
        }
    }

    @Test func errorJSONKeepsDataWithoutSecrets() throws {
        let select = TONError.card(status: StatusWord(0x6F02), instruction: .select, command: TONCommands.selectApplet)
        #expect(select.json.contains("313132323333343435353636"))
    }

    // MARK: Loops a card controls

    /// A card in the key-deleting state announcing 0xFFFF packets used to drive ~131,000
    /// protected commands; the keychain's memory (32767 bytes, 1023 keys) bounds them.
    @Test(arguments: [(0xFFFF, 0x0000), (0x0000, 0xFFFF), (0x0101, 0x0000), (0x0000, 0x0056)])
    func interruptedDeleteWithAbsurdPacketCounts(_ chunkPackets: Int, _ recordPackets: Int) async throws {
        let channel = DeletingCard(chunkPackets: chunkPackets, recordPackets: recordPackets)
        let wallet = TONWallet(channel: channel, hmacKeys: try await VectorA.keys())
        await #expect(throws: TONError.self) { try await wallet.finishDeleteKeyAfterInterruption() }
        do {
            _ = try await wallet.finishDeleteKeyAfterInterruption()
        } catch let error as TONError {
            #expect([40046, 40047].contains(error.code ?? 0), "\(error)")
        }
        #expect(await channel.count < 100)
    }

    /// Counts a correct card can announce are still followed.
    @Test func interruptedDeleteWithTheLargestPossibleCounts() async throws {
        let channel = DeletingCard(chunkPackets: 32767 / 128, recordPackets: 1022 / 12)
        let wallet = TONWallet(channel: channel, hmacKeys: try await VectorA.keys())
        #expect(try await wallet.finishDeleteKeyAfterInterruption() == 0)
    }
}

/// A TON card stuck in the key-deleting state (37) that announces the given packet counts and
/// answers DELETE_KEY_CHUNK / DELETE_KEY_RECORD with 00 until the announced count is used up;
/// protected commands are not checked. More than 2,000 commands fail the exchange.
actor DeletingCard: CardChannel {
    struct BudgetExceeded: Error {}

    let chunkPackets: Int, recordPackets: Int
    private var chunkCalls = 0, recordCalls = 0
    private(set) var count = 0

    init(chunkPackets: Int, recordPackets: Int) {
        self.chunkPackets = chunkPackets
        self.recordPackets = recordPackets
    }

    func transmit(_ command: CommandAPDU) async throws -> ResponseAPDU {
        count += 1
        guard count <= 2_000 else { throw BudgetExceeded() }
        let ok: (([UInt8]) -> ResponseAPDU) = { ResponseAPDU(data: $0, sw1: 0x90, sw2: 0x00) }
        switch command.ins {
        case 0xA4: return ok([])
        case 0xC1: return ok([0x37])
        case 0xC2: return ok(try [UInt8](hex: VectorA.serialWire))
        case 0xBD: return ok([UInt8](repeating: 0x11, count: 32))
        case 0xE1: return ok([UInt8(chunkPackets >> 8), UInt8(chunkPackets & 0xFF)])
        case 0xE2: return ok([UInt8(recordPackets >> 8), UInt8(recordPackets & 0xFF)])
        case 0xBE:
            chunkCalls += 1
            return ok([chunkCalls > chunkPackets ? 1 : 0])
        case 0xBF:
            recordCalls += 1
            return ok([recordCalls > recordPackets ? 1 : 0])
        case 0xB8: return ok([0x00, 0x00])
        default: return ResponseAPDU(sw1: 0x6D, sw2: 0x00)
        }
    }
}
