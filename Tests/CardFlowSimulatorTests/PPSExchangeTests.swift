import CardFlow
import CardFlowCCID
import CardFlowCCIDProtocol
import CardFlowSimulator
import Testing

/// pcsc-lite's CCID driver selects T=1 with a PPS request through XfrBlock on TPDU readers that
/// do not negotiate PPS themselves (the simulated ATR offers T=0 first).
@Suite("Simulated TPDU reader: PPS exchange")
struct PPSExchangeTests {
    private func poweredReader() async throws -> (VirtualCCIDReader, (CCIDCommand.Kind) async throws -> CCIDResponse) {
        let reader = VirtualCCIDReader(configuration: .level(.tpdu))
        await reader.insert(ISO7816Card(seed: 1))
        let sequence = SequenceCounter()
        let send: (CCIDCommand.Kind) async throws -> CCIDResponse = { kind in
            try await reader.receiveBulkOut(CCIDCommand(slot: 0, sequence: await sequence.next(), kind: kind).encoded())
            return try CCIDResponse(decoding: try await reader.nextBulkIn(maxLength: 1_024, timeout: .seconds(1)))
        }
        _ = try await send(.iccPowerOn(.automatic))
        return (reader, send)
    }

    private func xfr(_ data: [UInt8]) -> CCIDCommand.Kind {
        .xfrBlock(blockWaitingTimeMultiplier: 0, levelParameter: 0, data: data)
    }

    @Test("A PPS request for T=1 is confirmed by its echo, and T=1 blocks follow as before")
    func confirmsT1() async throws {
        let (_, send) = try await poweredReader()
        let confirmation = try await send(xfr([0xFF, 0x01, 0xFE]))
        #expect(confirmation.kind == .dataBlock(chainParameter: 0, data: [0xFF, 0x01, 0xFE]))
        // An I-block with SELECT still gets its answer after the PPS exchange.
        let select: [UInt8] = [0x00, 0xA4, 0x04, 0x0C, 0x07, 0xA0, 0x00, 0x00, 0x02, 0x47, 0x10, 0x01]
        let block: [UInt8] = [0x00, 0x00, UInt8(select.count)] + select
        let answer = try await send(xfr(block + [block.reduce(0, ^)]))
        guard case .dataBlock(_, let data) = answer.kind else { Issue.record("no data block"); return }
        #expect(Array(data.dropFirst(3).dropLast()) == [0x90, 0x00])
    }

    @Test("A PPS request with PPS1 (a speed) is confirmed too")
    func confirmsT1WithSpeed() async throws {
        let (_, send) = try await poweredReader()
        let withSpeed = try await send(xfr([0xFF, 0x11, 0x96, 0x78]))
        #expect(withSpeed.kind == .dataBlock(chainParameter: 0, data: [0xFF, 0x11, 0x96, 0x78]))
    }

    @Test("A PPS request for T=0 gets no answer: the contactless card behind the reader runs T=1")
    func refusesT0() async throws {
        let (_, send) = try await poweredReader()
        let answer = try await send(xfr([0xFF, 0x00, 0xFF]))
        #expect(answer.slotError == .iccMute)
    }

    @Test(
        "Only a well-formed request right after the ATR is a PPS (ISO/IEC 7816-3 §9.1)",
        arguments: [
            [0xFF, 0x01, 0x00] as [UInt8], // wrong PCK
            [0xFF, 0x11, 0xEE], // PPS1 announced, missing
        ])
    func malformedRequestsAreNotEchoed(request: [UInt8]) async throws {
        let (_, send) = try await poweredReader()
        let answer = try await send(xfr(request))
        if case .dataBlock(_, let data) = answer.kind { #expect(data != request) }
    }

    @Test("A second PPS request is not one: the exchange is over after the first")
    func onlyTheFirstExchangeIsAPPS() async throws {
        let (_, send) = try await poweredReader()
        _ = try await send(xfr([0xFF, 0x01, 0xFE]))
        let again = try await send(xfr([0xFF, 0x01, 0xFE]))
        if case .dataBlock(_, let data) = again.kind { #expect(data != [0xFF, 0x01, 0xFE]) }
    }
}

/// bSeq values for a test's commands, in order.
private actor SequenceCounter {
    private var value: UInt8 = 0
    func next() -> UInt8 {
        defer { value &+= 1 }
        return value
    }
}
