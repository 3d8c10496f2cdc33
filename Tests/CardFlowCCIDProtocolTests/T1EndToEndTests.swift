import CardFlowCCIDProtocol
import CardFlowSimulator
import Testing

/// T1HostProtocol against the independently written T1CardEndpoint.
@Suite struct T1EndToEndTests {
    /// INF lengths of the I-blocks in `blocks` (LRC framing).
    private func informationLengths(_ blocks: [[UInt8]]) -> [Int] {
        blocks.filter { $0[1] & 0x80 == 0 }.map { Int($0[2]) }
    }

    @Test func shortAPDUsInARow() {
        var link = T1Link()
        for index in 0..<5 {
            let command: [UInt8] = [0x00, 0xB0, 0x00, UInt8(index), 0x10]
            let expected = patternedResponse(length: 18, seed: UInt8(index))
            #expect(link.exchange(command) { _ in expected } == .completed(expected))
            #expect(link.commandsSeenByCard.last == command)
        }
        #expect(link.hostBlocks.count == 5)
        #expect(link.hostBlocks.map { $0[1] } == [0x00, 0x40, 0x00, 0x40, 0x00])
        #expect(link.cardBlocks.map { $0[1] } == [0x00, 0x40, 0x00, 0x40, 0x00])
    }

    @Test func commandChainingWithIFSC32() {
        var link = T1Link(host: T1HostProtocol(ifsc: 32), card: T1CardEndpoint(ifsc: 32))
        let command = patternedCommand(length: 300)
        #expect(link.exchange(command) { _ in [0x90, 0x00] } == .completed([0x90, 0x00]))
        #expect(link.commandsSeenByCard == [command])
        #expect(informationLengths(link.hostBlocks) == Array(repeating: 32, count: 9) + [12])
        // Nine acknowledgements and the answer.
        #expect(link.cardBlocks.count == 10)
    }

    @Test(arguments: [32, 254])
    func responseChainingByIFSD(ifsd: Int) {
        var link = T1Link()
        if ifsd != 32 {
            #expect(link.negotiateIFSD(ifsd) == .completed([]))
            #expect(link.card.ifsd == ifsd)
            #expect(link.host.ifsd == ifsd)
        }
        let response = patternedResponse(length: 1000)
        link.hostBlocks = []
        link.cardBlocks = []
        #expect(link.exchange([0x00, 0xB0, 0x00, 0x00, 0x00, 0x03, 0xE8]) { _ in response } == .completed(response))
        let fullBlocks = 1000 / ifsd
        #expect(
            informationLengths(link.cardBlocks) == Array(repeating: ifsd, count: fullBlocks) + [
                1000 - fullBlocks * ifsd
            ])
        // One command block, then one R-block per chained response block.
        #expect(link.hostBlocks.count == 1 + fullBlocks)
    }

    @Test func waitingTimeExtensionsBeforeAChainedAnswer() {
        var link = T1Link()
        link.plannedWaitingTimeExtensions = [9, 2]
        let response = patternedResponse(length: 100)
        #expect(link.exchange([0x80, 0x46, 0x00, 0x00]) { _ in response } == .completed(response))
        let responses = link.hostBlocks.enumerated().filter { $0.element[1] == 0xE3 }
        #expect(responses.map(\.element) == [[0x00, 0xE3, 0x01, 0x09, 0xEB], withLRC([0x00, 0xE3, 0x01, 0x02])])
        #expect(responses.map { link.multipliers[$0.offset] } == [9, 2])
        #expect(link.multipliers.filter { $0 != 1 }.count == 2)
    }

    @Test func cardChangesIFSCInTheMiddleOfACommandChain() {
        var link = T1Link(host: T1HostProtocol(ifsc: 32), card: T1CardEndpoint(ifsc: 32))
        link.card.scheduleInformationFieldSizeRequest(64)
        let command = patternedCommand(length: 300)
        #expect(link.exchange(command) { _ in [0x90, 0x00] } == .completed([0x90, 0x00]))
        #expect(link.commandsSeenByCard == [command])
        #expect(link.host.ifsc == 64)
        #expect(link.card.ifsc == 64)
        #expect(informationLengths(link.hostBlocks) == [32, 64, 64, 64, 64, 12])
        #expect(link.cardBlocks.first == withLRC([0x00, 0xC1, 0x01, 0x40]))
        #expect(link.hostBlocks[1] == withLRC([0x00, 0xE1, 0x01, 0x40]))
    }

    @Test func corruptedCardBlockIsRecoveredByRetransmission() {
        var link = T1Link()
        link.card.corruptNextBlockChecksum()
        let response = patternedResponse(length: 80)
        #expect(link.exchange([0x00, 0xCA, 0x01, 0x00]) { _ in response } == .completed(response))
        #expect(link.hostBlocks[1] == [0x00, 0x81, 0x00, 0x81])
        #expect(link.commandsSeenByCard.count == 1)
    }

    @Test func corruptedHostBlockIsRecoveredByRetransmission() {
        var link = T1Link()
        link.hostBlockFaults[0] = .corrupt
        #expect(link.exchange([0x00, 0xCA, 0x01, 0x00]) { _ in [0x90, 0x00] } == .completed([0x90, 0x00]))
        // The card asked for I-block 0 again and got the same bytes.
        #expect(link.cardBlocks[0][1] & 0xF0 == 0x80)
        #expect(link.hostBlocks[1] == link.hostBlocks[0])
        #expect(link.commandsSeenByCard == [[0x00, 0xCA, 0x01, 0x00]])
    }

    @Test func corruptionInsideBothChainsIsRecovered() {
        var link = T1Link(host: T1HostProtocol(ifsc: 32), card: T1CardEndpoint(ifsc: 32))
        link.hostBlockFaults[3] = .corrupt
        link.cardBlockFaults[12] = .corrupt
        let command = patternedCommand(length: 300)
        let response = patternedResponse(length: 1000)
        #expect(link.exchange(command) { _ in response } == .completed(response))
        #expect(link.commandsSeenByCard == [command])
        #expect(!link.hostBlocks.contains([0x00, 0xC0, 0x00, 0xC0]))
    }

    @Test func lostBlocksAreRecoveredAfterTimeouts() {
        var link = T1Link(host: T1HostProtocol(ifsc: 32), card: T1CardEndpoint(ifsc: 32))
        link.hostBlockFaults[2] = .drop
        link.cardBlockFaults[0] = .drop
        link.cardBlockFaults[15] = .drop
        let command = patternedCommand(length: 100)
        let response = patternedResponse(length: 600)
        #expect(link.exchange(command) { _ in response } == .completed(response))
        #expect(link.commandsSeenByCard == [command])
    }

    @Test func threeConsecutiveFailuresResynchroniseAndTheCommandIsRetried() {
        var link = T1Link()
        link.card.corruptChecksumOfNextBlocks(3)
        let command: [UInt8] = [0x00, 0x84, 0x00, 0x00, 0x08]
        let response = patternedResponse(length: 10)
        #expect(link.exchange(command) { _ in response } == .completed(response))
        #expect(link.hostBlocks.filter { $0 == [0x00, 0xC0, 0x00, 0xC0] }.count == 1)
        #expect(link.cardBlocks.contains([0x00, 0xE0, 0x00, 0xE0]))
        // Resynchronisation restarts the command, so the card executes it twice.
        #expect(link.commandsSeenByCard == [command, command])
        // Both sides continue in step afterwards.
        #expect(link.exchange(command) { _ in [0x90, 0x00] } == .completed([0x90, 0x00]))
    }

    @Test func resynchronisationLimitFailsAndResetRecovers() {
        var link = T1Link()
        link.card.corruptChecksumOfNextBlocks(1_000)
        #expect(
            link.exchange([0x00, 0x84, 0x00, 0x00, 0x08]) { _ in [0x90, 0x00] }
                == .failed(.resynchronisationFailed(attempts: 3)))
        #expect(link.hostBlocks.filter { $0 == [0x00, 0xC0, 0x00, 0xC0] }.count == 3)
        link.host.reset()
        link.card.reset()
        #expect(link.exchange([0x00, 0x84, 0x00, 0x00, 0x08]) { _ in [0x90, 0x00] } == .completed([0x90, 0x00]))
    }

    @Test func abandonedExchangeIsRecoveredByResynchronisation() {
        var link = T1Link(host: T1HostProtocol(ifsc: 32), card: T1CardEndpoint(ifsc: 32))
        #expect(link.exchange([0x00, 0xA4, 0x04, 0x00]) { _ in [0x90, 0x00] } == .completed([0x90, 0x00]))
        // Start a chained command and give up after three blocks, as a cancelled task would.
        var action = link.host.begin(command: patternedCommand(length: 200))
        for _ in 0..<3 {
            guard let block = sentBlock(action), case .send(let reply) = link.card.receive(block) else {
                Issue.record("expected the command chain to be under way")
                return
            }
            action = link.host.receive(reply)
        }
        #expect(link.host.isExchangeInProgress)
        #expect(link.drive(link.host.beginResynchronisation()) { _ in [] } == .completed([]))
        #expect(link.card.sendSequence == 0)
        #expect(link.card.expectedSequence == 0)
        let command = patternedCommand(length: 70)
        let response = patternedResponse(length: 40)
        #expect(link.exchange(command) { _ in response } == .completed(response))
        #expect(link.commandsSeenByCard.last == command)
    }

    @Test func crcChecksumBothWays() {
        var link = T1Link(
            host: T1HostProtocol(ifsc: 20, checksum: .crc), card: T1CardEndpoint(ifsc: 20, checksum: .crc))
        #expect(link.negotiateIFSD(50) == .completed([]))
        link.card.corruptNextBlockChecksum()
        link.hostBlockFaults[4] = .corrupt
        let command = patternedCommand(length: 90)
        let response = patternedResponse(length: 300)
        #expect(link.exchange(command) { _ in response } == .completed(response))
        #expect(link.commandsSeenByCard == [command])
    }

    @Test func nonZeroNodeAddress() {
        var link = T1Link(host: T1HostProtocol(nodeAddress: 0x12), card: T1CardEndpoint(hostNodeAddress: 0x12))
        let response = patternedResponse(length: 70)
        #expect(link.exchange([0x00, 0xCA, 0x01, 0x00]) { _ in response } == .completed(response))
        #expect(link.hostBlocks.allSatisfy { $0[0] == 0x12 })
        #expect(link.cardBlocks.allSatisfy { $0[0] == 0x21 })
    }

    /// Random corruption and loss in both directions: every exchange ends with exactly the card's
    /// response or with a failure that asks for a card reset, never with wrong data.
    @Test(arguments: [T1Checksum.lrc, .crc])
    func randomFaultsNeverProduceAWrongResponse(checksum: T1Checksum) {
        var generator = SplitMix64(seed: 0x7431)
        var completed = 0
        var failed = 0
        var recovered = 0
        for trial in 0..<40 {
            let ifsc = [16, 32, 254][trial % 3]
            var link = T1Link(
                host: T1HostProtocol(ifsc: ifsc, checksum: checksum),
                card: T1CardEndpoint(ifsc: ifsc, checksum: checksum))
            link.generator = SplitMix64(seed: UInt64(trial))
            link.randomFaultRate = 0.06
            if case .failed = link.negotiateIFSD([32, 64, 254][trial % 3]) {
                link.host.reset()
                link.card.reset()
            }
            for _ in 0..<8 {
                let command = patternedCommand(length: Int.random(in: 1...600, using: &generator))
                let response = patternedResponse(length: Int.random(in: 2...800, using: &generator), seed: UInt8(trial))
                let blocksBefore = link.hostBlocks.count + link.cardBlocks.count
                switch link.exchange(command, respond: { _ in response }) {
                case .completed(let received):
                    #expect(received == response)
                    #expect(link.commandsSeenByCard.last == command)
                    completed += 1
                    let blocksUsed = link.hostBlocks.count + link.cardBlocks.count - blocksBefore
                    let cleanBlocks =
                        2
                        * (max(command.count - 1, 0) / link.host.ifsc + 1 + max(response.count - 1, 0) / link.host.ifsd)
                    if blocksUsed > cleanBlocks { recovered += 1 }
                case .failed(let error):
                    #expect(error.requiresCardReset)
                    failed += 1
                    link.host.reset()
                    link.card.reset()
                case .send:
                    Issue.record("exchange stopped while still sending")
                }
            }
        }
        #expect(completed + failed == 320)
        #expect(completed >= 240)
        #expect(recovered >= 100)
    }
}
