import CardFlow
import CardFlowCCID
import CardFlowCCIDProtocol
import CardFlowSimulator
import Testing

/// The simulator's timing model against the RF bound table of reference/ccid.md 6.4.
@Suite("Timing model")
struct TimingModelTests {
    /// (command bytes, response bytes, RF ms at 106 kbit/s, at 424 kbit/s) from the table.
    static let table: [(Int, Int, Double, Double)] = [
        (5, 2, 1.40, 0.41), (8, 2, 1.65, 0.48), (13, 61, 7.98, 2.19), (13, 130, 14.7, 4.0), (5, 258, 26.7, 7.3),
    ]

    @Test("RF time matches the reference table", arguments: 0..<table.count)
    func radioTime(_ row: Int) {
        let (command, response, at106, at424) = Self.table[row]
        func milliseconds(_ duration: Duration) -> Double {
            Double(duration.components.seconds) * 1000 + Double(duration.components.attoseconds) / 1e15
        }
        let slow = milliseconds(TimingModel(rfBitRate: 106).radioTime(commandLength: command, responseLength: response))
        let fast = milliseconds(TimingModel(rfBitRate: 424).radioTime(commandLength: command, responseLength: response))
        // The table rounds to 2-3 significant digits.
        #expect(abs(slow - at106) <= max(0.02, at106 * 0.02), "\(command)/\(response) @106: \(slow) ms")
        #expect(abs(fast - at424) <= max(0.02, at424 * 0.03), "\(command)/\(response) @424: \(fast) ms")
    }

    @Test func zeroModelAddsNothing() {
        #expect(TimingModel.zero.isZero)
        #expect(TimingModel.zero.exchangeTime(commandLength: 300, responseLength: 300, cardTime: .zero) == .zero)
        let fullSpeed = TimingModel.fullSpeedReader(rfBitRate: 106)
        #expect(
            fullSpeed.exchangeTime(commandLength: 5, responseLength: 2, cardTime: .milliseconds(3))
                > .milliseconds(5))
    }

    @Test func readerAnswersWhenTheModelSaysSo() async throws {
        let clock = ManualClock()
        var configuration = VirtualReaderConfiguration()
        configuration.timing = TimingModel(usbRoundTrip: .milliseconds(1), extraLatency: .milliseconds(200))
        let reader = VirtualCCIDReader(configuration: configuration, clock: clock)
        await reader.insert(ISO7816Card(seed: 3))
        try await reader.receiveBulkOut(CCIDCommand(slot: 0, sequence: 0, kind: .iccPowerOn(.automatic)).encoded())
        // Power-on is reader-only time: 1 ms.
        let pending = Task { try await reader.nextBulkIn(maxLength: 1024, timeout: .seconds(10)) }
        while await clock.sleeperCount == 0 { await Task.yield() }
        await clock.advance(by: .microseconds(999))
        #expect(await clock.sleeperCount == 1)
        await clock.advance(by: .microseconds(1))
        let atr = try await pending.value
        #expect(try CCIDResponse(decoding: atr).messageType == .dataBlock)

        // A card exchange costs USB + extra latency: 201 ms; a 100 ms read timeout expires first.
        let select: [UInt8] = [0x00, 0xA4, 0x04, 0x00, 0x07, 0xA0, 0x00, 0x00, 0x02, 0x47, 0x10, 0x01]
        try await reader.receiveBulkOut(
            CCIDCommand(
                slot: 0, sequence: 1, kind: .xfrBlock(blockWaitingTimeMultiplier: 0, levelParameter: 0, data: select)
            ).encoded())
        let early = Task { try await reader.nextBulkIn(maxLength: 1024, timeout: .milliseconds(100)) }
        while await clock.sleeperCount == 0 { await Task.yield() }
        await clock.advance(by: .milliseconds(100))
        await #expect(throws: USBTransportError.timeout(endpoint: "bulk-IN", after: .milliseconds(100))) {
            try await early.value
        }
        let late = Task { try await reader.nextBulkIn(maxLength: 1024, timeout: .seconds(1)) }
        while await clock.sleeperCount == 0 { await Task.yield() }
        await clock.advance(by: .milliseconds(101))
        let answer = try CCIDResponse(decoding: try await late.value)
        guard case .dataBlock(_, let data) = answer.kind else { Issue.record("not a data block"); return }
        #expect(data.suffix(2) == [0x90, 0x00])
    }
}
