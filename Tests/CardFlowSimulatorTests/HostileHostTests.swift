import CardFlow
import CardFlowCCID
import CardFlowCCIDProtocol
import CardFlowSimulator
import Testing

/// The simulated reader is also a USB device any libusb program can drive (`cardctl simulate`):
/// a host that chains a command without end must not grow the reader's or the card's memory.
@Suite("Simulated reader against a hostile host")
struct HostileHostTests {
    @Test("wLevelParameter chaining beyond an extended APDU is refused with bad wLevelParameter")
    func endlessCCIDChainingIsRefused() async throws {
        let reader = VirtualCCIDReader(configuration: .level(.extendedAPDU))
        await reader.insert(ISO7816Card(seed: 1))
        var sequence: UInt8 = 0
        func send(_ kind: CCIDCommand.Kind) async throws -> CCIDResponse {
            try await reader.receiveBulkOut(CCIDCommand(slot: 0, sequence: sequence, kind: kind).encoded())
            sequence &+= 1
            return try CCIDResponse(decoding: try await reader.nextBulkIn(maxLength: 70_000, timeout: .seconds(1)))
        }
        _ = try await send(.iccPowerOn(.automatic))
        let part = [UInt8](repeating: 0x42, count: 261)
        var answer = try await send(
            .xfrBlock(blockWaitingTimeMultiplier: 0, levelParameter: CCIDLevelParameter.begins, data: part))
        var parts = 1
        while answer.slotError == nil && parts < 1_000 {
            answer = try await send(
                .xfrBlock(blockWaitingTimeMultiplier: 0, levelParameter: CCIDLevelParameter.continues, data: part))
            parts += 1
        }
        #expect(answer.slotError == .badParameter(offset: 8))
        #expect(parts * part.count > VirtualCCIDReader.maxChainedCommandLength)
        #expect((parts - 1) * part.count <= VirtualCCIDReader.maxChainedCommandLength)
        // The reader is still usable: a complete APDU is answered.
        let select = try await send(
            .xfrBlock(
                blockWaitingTimeMultiplier: 0, levelParameter: CCIDLevelParameter.complete,
                data: [0x00, 0xA4, 0x04, 0x00, 0x07, 0xA0, 0x00, 0x00, 0x02, 0x47, 0x10, 0x01]))
        #expect(select.slotError == nil)
    }

    @Test("T=1 chaining beyond an extended APDU: the card refuses the block and never takes the command")
    func endlessT1ChainingIsRefused() {
        var host = T1HostProtocol(ifsc: 254)
        var card = T1CardEndpoint(ifsc: 254)
        var action = host.begin(command: [UInt8](repeating: 0x11, count: 70_000))
        var exchanged = 0
        var longestCommandTaken = 0
        loop: while exchanged < 2_000 {
            guard case .send(let block, _) = action else { break }
            exchanged += 1
            switch card.receive(block) {
            case .send(let answer):
                action = host.receive(answer)
            case .commandComplete(let command):
                longestCommandTaken = max(longestCommandTaken, command.count)
                break loop
            case .waitingTimeExtensionGranted:
                break loop
            }
        }
        #expect(exchanged < 2_000, "the exchange ends")
        #expect(longestCommandTaken <= T1CardEndpoint.maximumCommandLength)
        if case .completed = action { Issue.record("a 70,000-byte command cannot complete") }
    }
}
