import CardFlowCCIDProtocol
import CardFlowSimulator
import CardFlowSimulatorUSB
import Testing

@testable import CardFlowCCIDProtocol

/// `LibUSBTransport` begins the bulk-IN read for a command's answer together with the command.
/// Whatever that read meets (an answer, a caller with a shorter or longer timeout, a
/// cancellation, a read already on the pipe), the caller must see what a plain write and read
/// would give: the same messages in the same order, its own timeout and its own cancellation.
extension USBIntegration {
    @Suite("libusb bulk-IN read begun with the command") struct ReadAheadTests {}
}

extension USBIntegration.ReadAheadTests {
    private static func slotStatus(_ sequence: UInt8) -> [UInt8] {
        CCIDCommand(slot: 0, sequence: sequence, kind: .getSlotStatus).encoded()
    }

    private static func answer(
        _ transport: LibUSBTransport, timeout: Duration
    ) async throws(USBTransportError) -> CCIDResponse? {
        let bytes = try await transport.bulkIn(maxLength: 1024, timeout: timeout)
        return try? CCIDResponse(decoding: bytes)
    }

    /// Waits (yielding, bounded) until `condition` holds: a gate on the transport's own counts,
    /// not a guess at how long the emulated bus takes.
    private static func until(_ condition: () -> Bool) async throws {
        let clock = ContinuousClock()
        let end = clock.now + .seconds(20)
        while !condition() {
            guard clock.now < end else {
                Issue.record("condition not reached in 20 s")
                return
            }
            try await Task.sleep(for: .milliseconds(1))
        }
    }

    /// Sends command 1, which the reader will never answer, with a read begun ahead that lasts
    /// `readAhead`.
    private static func unansweredCommand(on reader: OpenedUSBReader, readAhead: Duration) async throws {
        await reader.virtual.inject(.noResponse)
        try await reader.transport.bulkOut(
            slotStatus(1), timeout: .seconds(2), readingAhead: USBBulkInRead(maxLength: 1024, timeout: readAhead))
    }

    /// Command 2, written plainly, is answered to the next read: nothing earlier took its answer.
    private static func expectCommandTwoAnswered(on transport: LibUSBTransport) async throws {
        try await transport.bulkOut(slotStatus(2), timeout: .seconds(2))
        #expect(try await answer(transport, timeout: .seconds(2))?.sequence == 2)
    }

    @Test func theReadBegunWithTheCommandCarriesItsAnswer() async throws {
        guard let testbed = try MockEnvironment.testbed() else { return }
        let reader = try await OpenedUSBReader.make(testbed)
        let transport = reader.transport
        let before = reader.emulated.statistics.urbsSubmitted
        try await transport.bulkOut(
            Self.slotStatus(7), timeout: .seconds(2), readingAhead: USBBulkInRead(maxLength: 1024, timeout: .seconds(2))
        )
        // The write is done and the read is on the bus before anyone asked for it.
        #expect(reader.emulated.statistics.urbsSubmitted - before == 2)
        #expect(transport.readAheadCounts.started == 1)
        let response = try await Self.answer(transport, timeout: .seconds(2))
        #expect(response?.sequence == 7)
        #expect(response?.messageType == .slotStatus)
        #expect(transport.readAheadCounts == .init(started: 1, taken: 1, answered: 1))
        // A plain write and read afterwards are unchanged.
        try await transport.bulkOut(Self.slotStatus(8), timeout: .seconds(2))
        #expect(try await Self.answer(transport, timeout: .seconds(2))?.sequence == 8)
        #expect(transport.readAheadCounts.started == 1)
        await reader.close()
    }

    @Test func aCallerWithAShorterTimeoutIsNotHeldByTheLongerReadAhead() async throws {
        guard let testbed = try MockEnvironment.testbed() else { return }
        let reader = try await OpenedUSBReader.make(testbed)
        let transport = reader.transport
        try await Self.unansweredCommand(on: reader, readAhead: .seconds(60))
        let started = ContinuousClock.now
        let name = LibUSBErrorMapping.endpointName("bulk-IN", transport.reader.endpoints.bulkIn)
        await #expect(throws: USBTransportError.timeout(endpoint: name, after: .milliseconds(200))) {
            _ = try await Self.answer(transport, timeout: .milliseconds(200))
        }
        #expect(ContinuousClock.now - started < .seconds(30), "the caller's 200 ms, not the read ahead's 60 s")
        #expect(transport.readAheadCounts.cutShort == 1)
        // The read cut short took nothing: the next answer reaches the next read.
        try await Self.expectCommandTwoAnswered(on: transport)
        await reader.close()
    }

    @Test func aReadAheadThatTimesOutFirstIsFollowedByAReadForTheCallersRemainingTime() async throws {
        guard let testbed = try MockEnvironment.testbed() else { return }
        let reader = try await OpenedUSBReader.make(testbed)
        let transport = reader.transport
        try await Self.unansweredCommand(on: reader, readAhead: .milliseconds(50))
        let waiting = Task { try await Self.answer(transport, timeout: .seconds(30)) }
        // The read ahead ended without an answer and the caller reads again…
        try await Self.until { transport.readAheadCounts.readAgain == 1 }
        // …so the answer to a later command still reaches it.
        try await transport.bulkOut(Self.slotStatus(2), timeout: .seconds(2))
        #expect(try await waiting.value?.sequence == 2)
        #expect(transport.readAheadCounts == .init(started: 1, taken: 1, answered: 0, readAgain: 1))
        await reader.close()
    }

    @Test func cancellingTheCallerCancelsTheReadAhead() async throws {
        guard let testbed = try MockEnvironment.testbed() else { return }
        let reader = try await OpenedUSBReader.make(testbed)
        let transport = reader.transport
        try await Self.unansweredCommand(on: reader, readAhead: .seconds(60))
        let waiting = Task { try await Self.answer(transport, timeout: .seconds(60)) }
        let started = ContinuousClock.now
        waiting.cancel()
        await #expect(throws: USBTransportError.cancelled) { _ = try await waiting.value }
        #expect(ContinuousClock.now - started < .seconds(30))
        try await Self.expectCommandTwoAnswered(on: transport)
        await reader.close()
    }

    @Test func noReadIsBegunWhileAnotherIsOnThePipe() async throws {
        guard let testbed = try MockEnvironment.testbed() else { return }
        let reader = try await OpenedUSBReader.make(testbed)
        let transport = reader.transport
        let waiting = Task { try await Self.answer(transport, timeout: .seconds(30)) }
        try await Self.until { transport.bulkInCallsUnderWay == 1 }
        try await transport.bulkOut(
            Self.slotStatus(3), timeout: .seconds(2), readingAhead: USBBulkInRead(maxLength: 1024, timeout: .seconds(2))
        )
        #expect(transport.readAheadCounts.started == 0)
        #expect(try await waiting.value?.sequence == 3)
        await reader.close()
    }

    @Test func aReadAheadNobodyTakesIsCancelledByClose() async throws {
        guard let testbed = try MockEnvironment.testbed() else { return }
        let reader = try await OpenedUSBReader.make(testbed)
        try await Self.unansweredCommand(on: reader, readAhead: .seconds(60))
        let started = ContinuousClock.now
        reader.transport.close() // waits for the pending read to come back from libusb
        #expect(ContinuousClock.now - started < .seconds(30))
        await #expect(throws: USBTransportError.io("the USB reader was closed")) {
            _ = try await reader.transport.bulkIn(maxLength: 1024, timeout: .seconds(1))
        }
        await reader.close()
    }
}
