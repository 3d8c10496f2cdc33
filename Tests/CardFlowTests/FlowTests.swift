import CardFlow
import CardFlowCCID
import CardFlowCCIDProtocol
import CardFlowSimulator
import Testing

/// Collects a run's events while it runs.
actor EventLog {
    private(set) var events: [FlowEvent] = []
    func append(_ event: FlowEvent) { events.append(event) }
    func contains(_ predicate: (FlowEvent) -> Bool) -> Bool { events.contains(where: predicate) }
}

func collect<T>(_ run: FlowRun<T>) -> (EventLog, Task<Void, Never>) {
    let log = EventLog()
    let task = Task { for await event in run.progress { await log.append(event) } }
    return (log, task)
}

@Suite("Flows")
struct FlowTests {
    static let readFlow = Flow.start("select") { session in try await session.send(selectApp).statusWord }
        .then("read") { _, session in try await session.send(readFirstFile).data }

    @Test func chainedFlowReportsStepsAndCompletes() async throws {
        let (reader, _) = await simulatedReader()
        let run = reader.run(Self.readFlow.map { $0.count })
        let (log, collector) = collect(run)
        #expect(try await run.value == 32)
        await collector.value
        let events = await log.events
        #expect(events.first == .waitingForCard || { if case .connected = events.first { true } else { false } }())
        #expect(events.contains(.stepStarted(index: 0, total: 2, name: "select")))
        #expect(events.contains(.stepFinished(index: 1, total: 2, name: "read")))
        #expect(events.last == .completed)
    }

    @Test func aGeneratedChainRunsOneStepPerItemInOrder() async throws {
        let (reader, virtual) = await simulatedReader()
        let offsets: [UInt8] = [0, 4, 8, 12]
        let flow = Flow.start("select") { session in try await session.send(selectApp).data.count }
            .then(forEach: offsets, name: { index, offset in "read \(index) at \(offset)" }) { total, offset, session in
                total
                    + (try await session.send(try CommandAPDU(cla: 0x00, ins: 0xB0, p1: 0x81, p2: offset, le: 4)).data
                        .count)
            }
        let before = await virtual.apdusProcessed
        let run = reader.run(flow)
        let (log, collector) = collect(run)
        let total = try await run.value
        await collector.value
        #expect(total > 16)
        #expect(await virtual.apdusProcessed - before >= 5)
        let names = await log.events.compactMap { event -> String? in
            if case .stepFinished(_, let count, let name) = event, count == 5 { return name }
            return nil
        }
        #expect(names == ["select", "read 0 at 0", "read 1 at 4", "read 2 at 8", "read 3 at 12"])
    }

    @Test func cardLiftedMidFlowAndReturnedResumesTheStep() async throws {
        let (reader, virtual) = await simulatedReader()
        // SELECT passes; the card leaves right after, and returns 100 ms later.
        await virtual.liftCard(afterAPDUs: 1, returnAfter: .milliseconds(100))
        let flow = Flow.start("select") { session in
            await session.onReconnect { session in _ = try await session.send(selectApp) }
            return try await session.send(selectApp).statusWord
        }
        .then("read") { _, session in try await session.send(readFirstFile).data }
        let run = reader.run(flow)
        let (log, collector) = collect(run)
        #expect(try await run.value == firstFileContents)
        await collector.value
        #expect(await log.contains { $0 == .cardLost(index: 1) })
        #expect(await log.contains { $0 == .resumed(index: 1) })
        #expect(await log.contains { $0 == .waitingForCard })
        #expect(await log.events.last == .completed)
    }

    @Test func aDifferentCardIsReportedAndNotWrittenTo() async throws {
        let (reader, virtual) = await simulatedReader(card: ISO7816Card(seed: 1))
        let stranger = ISO7816Card(seed: 2)
        await virtual.liftCard(afterAPDUs: 1, returnAfter: .milliseconds(50), replacement: stranger)
        let write = try CommandAPDU(hex: "00D6810002CAFE")
        let flow = Flow.start("select") { session in
            await session.onReconnect { session in _ = try await session.send(selectApp) }
            return try await session.send(selectApp).statusWord
        }
        .then("write", idempotent: true) { _, session in try await session.send(write).statusWord }
        let run = reader.run(flow)
        let (log, collector) = collect(run)
        // Wait for the wrong-card report, then swap the right card back in.
        while await !log.contains({ if case .wrongCard = $0 { true } else { false } }) {
            try await Task.sleep(for: .milliseconds(5))
        }
        let left = await virtual.removeCard()
        try await Task.sleep(for: .milliseconds(20))
        await virtual.insert(ISO7816Card(seed: 1))
        #expect(try await run.value == .success)
        await collector.value
        // The stranger's file is untouched.
        var strangerCard = try #require(left as? ISO7816Card)
        strangerCard.powerOn()
        _ = strangerCard.process(selectApp.encoded())
        #expect(strangerCard.process(readFirstFile.encoded()) == firstFileContents + [0x90, 0x00])
    }

    @Test func cardThatNeverReturnsGivesABoundedTypedError() async throws {
        let (reader, virtual) = await simulatedReader()
        await virtual.liftCard(afterAPDUs: 1)
        var policy = SessionPolicy()
        policy.cardReturnTimeout = .milliseconds(200)
        let run = reader.run(Self.readFlow, policy: policy)
        let started = ContinuousClock.now
        await #expect(throws: SessionError.cardDidNotReturn(waited: .milliseconds(200))) { try await run.value }
        // Bounded (a loose wall-clock bound: the machine may be busy with other tests).
        #expect(ContinuousClock.now - started < .seconds(30))
    }

    @Test func nonIdempotentStepIsVerifiedBeforeItIsRetried() async throws {
        let (reader, virtual) = await simulatedReader()
        await virtual.liftCard(afterAPDUs: 2, returnAfter: .milliseconds(50))
        let write = try CommandAPDU(hex: "00D6810002BEEF")
        let verifications = OrderLog()
        let flow = Flow.start("select") { session in
            await session.onReconnect { session in _ = try await session.send(selectApp) }
            return try await session.send(selectApp).statusWord
        }
        .then(
            "write", idempotent: false,
            verify: { _, session in
                await verifications.append(1)
                let current = try await session.send(try CommandAPDU(hex: "00B0810002")).data
                return current == [0xBE, 0xEF] ? StatusWord.success : nil
            }
        ) { _, session in
            // The write lands, then the card leaves before the read-back: the step is interrupted.
            let status = try await session.send(write).statusWord
            _ = try await session.send(try CommandAPDU(hex: "00B0810002"))
            return status
        }
        #expect(try await reader.run(flow).value == .success)
        #expect(await verifications.values == [1])

        // Without a verification the flow refuses to guess.
        await virtual.liftCard(afterAPDUs: 2, returnAfter: .milliseconds(50))
        let blind = Flow.start("select") { session in try await session.send(selectApp).statusWord }
            .then("write", idempotent: false) { _, session in
                let status = try await session.send(write).statusWord
                _ = try await session.send(try CommandAPDU(hex: "00B0810002"))
                return status
            }
        do {
            _ = try await reader.run(blind).value
            Issue.record("an interrupted unverifiable step must not be retried")
        } catch let error as FlowError {
            #expect(error.stepIndex == 1)
            #expect(error.underlying as? SessionError == .unverifiableStepInterrupted(step: 1, name: "write"))
        }
    }

    @Test func retryAndRecover() async throws {
        let (reader, _) = await simulatedReader()
        let attempts = OrderLog()
        let flaky = Flow.start("flaky") { session in
            await attempts.append(1)
            let response = try await session.send(try CommandAPDU(hex: "00A4040007A0000002479999"))
            try response.throwIfNotSuccess(for: selectApp)
            return response.statusWord
        }
        var policy = SessionPolicy()
        policy.clock = RealClock()
        await #expect(throws: FlowError.self) {
            try await reader.run(flaky.retry(2, backoff: .milliseconds(1)), policy: policy).value
        }
        #expect(await attempts.values.count == 3)
        let recovered = flaky.recover { error, _ in StatusWord(0x6A82) }
        #expect(try await reader.run(recovered).value == StatusWord(0x6A82))
    }

    @Test func cancellingAFlowStopsTheAPDUAndClosesTheSession() async throws {
        let (reader, virtual) = await simulatedReader(latency: .milliseconds(300))
        let flow = Flow.start("slow") { session in
            for _ in 0..<100 { _ = try await session.send(selectApp) }
            return 0
        }
        let ensured = OrderLog()
        let run = reader.run(flow.ensure { _ in await ensured.append(1) })
        try await Task.sleep(for: .milliseconds(700))
        let processedAtCancel = await virtual.apdusProcessed
        run.cancel()
        await #expect(throws: CancellationError.self) { try await run.value }
        // Stopped, not drained: at most the APDU in flight reached the card after the cancel
        // (the rest would take 30 s). Counted rather than timed, so machine load cannot flake it.
        let processedAfter = await virtual.apdusProcessed
        #expect(processedAfter - processedAtCancel <= 1, "\(processedAtCancel) → \(processedAfter)")
        #expect(processedAfter < 20)
        #expect(await ensured.values == [1])
        // The reader is free for the next flow.
        let next = try await reader.withSession { session in
            _ = try await session.send(selectApp)
            return try await session.send(readFirstFile).data
        }
        #expect(next == firstFileContents)
    }

    @Test func flowTimeoutBoundsTheWholeChain() async throws {
        let (reader, _) = await simulatedReader(card: nil)
        let run = reader.run(Self.readFlow.timeout(.milliseconds(150)))
        await #expect(throws: SessionError.timedOut(what: "flow", after: .milliseconds(150))) { try await run.value }
    }

    @Test func reconnectBetweenStepsReplaysRestorations() async throws {
        let (reader, virtual) = await simulatedReader()
        var policy = SessionPolicy()
        policy.reconnectBetweenSteps = true
        let flow = Flow.start("select") { session in
            await session.onReconnect { session in _ = try await session.send(selectApp) }
            return try await session.send(selectApp).statusWord
        }
        .then("read") { _, session in try await session.send(readFirstFile).data }
        let before = await virtual.commandsReceived
        #expect(try await reader.run(flow, policy: policy).value == firstFileContents)
        // Power off + power on + replayed SELECT happened between the steps.
        #expect(await virtual.commandsReceived - before >= 7)
    }
}

extension FlowTests {
    @Test func stepsReportProgressFractions() async throws {
        let (reader, _) = await simulatedReader()
        let flow = Flow.start("long read") { session in
            _ = try await session.send(selectApp)
            for part in 1...4 {
                _ = try await session.send(readFirstFile)
                await session.reportProgress(Double(part) / 4)
            }
            return 4
        }
        let run = reader.run(flow)
        let (log, collector) = collect(run)
        #expect(try await run.value == 4)
        await collector.value
        let fractions = await log.events.compactMap { event -> Double? in
            if case .progress(let fraction) = event { fraction } else { nil }
        }
        #expect(fractions == [0.25, 0.5, 0.75, 1.0])
    }
}
