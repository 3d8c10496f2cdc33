import CardFlowCCIDProtocol
import CardFlowSimulator
import Testing

/// Seeded random blocks fed to the host: it must stay within its retry and resynchronisation
/// bounds, only ever emit well-formed blocks, and be usable again after reset().
@Suite struct T1HostFuzzTests {
    /// Random bytes whose last byte is never the LRC of the others, so no block is valid.
    private func garbage(using generator: inout SplitMix64) -> [UInt8] {
        let length = Int.random(in: 0...40, using: &generator)
        var bytes = (0..<length).map { _ in UInt8.random(in: 0...0xFF, using: &generator) }
        if let last = bytes.indices.last {
            let lrc = bytes.dropLast().reduce(0, ^)
            if bytes[last] == lrc { bytes[last] = lrc ^ 0x01 }
        }
        return bytes
    }

    /// A correctly framed block (valid LRC) with a random NAD, PCB and INF, biased towards defined
    /// PCBs and NAD 0 so the state machine is reached beyond the framing checks.
    private func framedBlock(using generator: inout SplitMix64) -> [UInt8] {
        let definedPCBs: [UInt8] = [
            0x00, 0x20, 0x40, 0x60, 0x80, 0x81, 0x82, 0x90, 0x91, 0x92,
            0xC0, 0xC1, 0xC2, 0xC3, 0xC4, 0xE0, 0xE1, 0xE2, 0xE3, 0xE4,
        ]
        let nad: UInt8 =
            Int.random(in: 0..<8, using: &generator) == 0 ? UInt8.random(in: 0...0xFF, using: &generator) : 0
        let pcb =
            Int.random(in: 0..<10, using: &generator) == 0
            ? UInt8.random(in: 0...0xFF, using: &generator)
            : definedPCBs.randomElement(using: &generator)!
        let length = [0, 0, 1, 1, 2, 5, 40][Int.random(in: 0..<7, using: &generator)]
        let information = (0..<length).map { _ in UInt8.random(in: 0...0xFF, using: &generator) }
        return withLRC([nad, pcb, UInt8(length)] + information)
    }

    @Test func pureGarbageFailsAfterTwoRetriesAndThreeResynchronisations() {
        var generator = SplitMix64(seed: 42)
        for _ in 0..<200 {
            var host = T1HostProtocol(ifsc: Int.random(in: 1...254, using: &generator))
            let command = patternedCommand(length: Int.random(in: 1...400, using: &generator))
            var action = host.begin(command: command)
            var received = 0
            while case .send = action, received < 50 {
                action =
                    Bool.random(using: &generator) ? host.receive(garbage(using: &generator)) : host.timeoutOccurred()
                received += 1
            }
            #expect(action == .failed(.resynchronisationFailed(attempts: 3)))
            #expect(received == 6)
            #expect(host.requiresCardReset)
        }
    }

    @Test func framedRandomBlocksStayWithinBounds() throws {
        var generator = SplitMix64(seed: 0x5EED)
        var outcomes = (completed: 0, failed: 0, running: 0)
        for _ in 0..<500 {
            var host = T1HostProtocol(ifsc: [1, 4, 32, 254].randomElement(using: &generator)!)
            let command = patternedCommand(length: Int.random(in: 1...60, using: &generator))
            var action = host.begin(command: command)
            var resynchronisationRequests = 0
            var steps = 0
            while case .send(let block, let multiplier) = action, steps < 60 {
                // Everything the host sends is a well-formed block addressed with NAD 0.
                let decoded = try T1Block(decoding: block, checksum: .lrc)
                #expect(decoded.nodeAddress == 0)
                #expect(multiplier >= 1)
                if decoded.kind == .supervisory(.resynch, isResponse: false) { resynchronisationRequests += 1 }
                if case .receiveReady(let sequence, _) = decoded.kind {
                    #expect(sequence == host.receiveSequence)
                }
                #expect((1...254).contains(host.ifsc))
                action =
                    Int.random(in: 0..<4, using: &generator) == 0
                    ? host.receive(garbage(using: &generator))
                    : host.receive(framedBlock(using: &generator))
                steps += 1
            }
            #expect(resynchronisationRequests <= 3)
            switch action {
            case .completed:
                outcomes.completed += 1
                #expect(!host.isExchangeInProgress)
            case .failed(let error):
                outcomes.failed += 1
                #expect(error.requiresCardReset)
                #expect(host.requiresCardReset)
            case .send:
                outcomes.running += 1
            }
            // Whatever happened, a reset host talks cleanly to a fresh card.
            host.reset()
            var link = T1Link(host: host, card: T1CardEndpoint(ifsc: host.initialIFSC))
            #expect(link.exchange(command) { _ in [0x90, 0x00] } == .completed([0x90, 0x00]))
        }
        // The generator reaches all three outcomes, so the invariants above were exercised deep in
        // the state machine, not only on framing errors.
        #expect(outcomes.completed > 0)
        #expect(outcomes.failed > 0)
        #expect(outcomes.completed + outcomes.failed + outcomes.running == 500)
    }
}
