import CardFlow
import CardFlowPCSC
import CardFlowPCSCLite
import Testing

/// The PC/SC backend as a CardFlow reader: sessions, flows and announced presence through the
/// real pcscd + libccid on the simulated USB reader (Scripts/pcsc-backend-check.sh, phase 1).
@Suite(.serialized, .enabled(if: PCSCTestEnvironment.hasPCSCD, PCSCTestEnvironment.skipReason))
struct PCSCBackendReaderDriverTests {
    typealias Environment = PCSCTestEnvironment

    /// The simulated reader as it arrives in a PCSCReaderRegistry.
    static func reader() async throws -> (Reader, PCSCReaderRegistry) {
        let registry = try await PCSCReaderRegistry(logger: Environment.logger) {
            $0.contains(Environment.readerSubstring)
        }
        let reader = try await Environment.within(.seconds(20), "the simulated reader in the registry") {
            try await registry.waitForReader()
        }
        return (reader, registry)
    }

    @Test func aSessionAndAFlowRunThroughPCSCD() async throws {
        let (reader, registry) = try await Self.reader()
        #expect(reader.info.backend == "pcsc")
        #expect(reader.info.id == "pcsc:\(reader.info.name)")
        let (atr, fci) = try await reader.withSession { session in
            (
                await session.identity.atr,
                try await session.send(try CommandAPDU(bytes: SimulatedCard.selectApplication))
            )
        }
        #expect(atr == Environment.simulatedATR)
        #expect(fci.data == SimulatedCard.applicationFCI && fci.statusWord == .success)
        let flow = Flow.start("select") { session in
            try await session.send(try CommandAPDU(bytes: SimulatedCard.selectApplication)).statusWord
        }
        .then("again") { _, session in
            try await session.send(try CommandAPDU(bytes: SimulatedCard.selectApplication)).data
        }
        #expect(try await reader.run(flow).value == SimulatedCard.applicationFCI)
        // A safety net, not a benchmark: each APDU used to wait for the registry's 1 s
        // SCardGetStatusChange (libpcsclite holds other calls up meanwhile); 20 took 20 s.
        let start = ContinuousClock.now
        try await reader.withSession { session in
            for _ in 0..<20 { _ = try await session.send(try CommandAPDU(bytes: SimulatedCard.selectApplication)) }
        }
        #expect(ContinuousClock.now - start < .seconds(8), "20 APDUs through pcscd took \(ContinuousClock.now - start)")
        await registry.close()
    }

    @Test func presenceIsAnnouncedNotPolled() async throws {
        let (reader, registry) = try await Self.reader()
        #expect(reader.info.capabilities.announcesPresence)
        let first = try await Environment.within(.seconds(10), "the first presence") {
            var presence = await reader.cardPresence().makeAsyncIterator()
            return await presence.next()
        }
        #expect(first == .present)
        #expect(try await reader.currentPresence() == .present)
        await registry.close()
    }

    @Test func aProtocolRequestReachesPCSCD() async throws {
        let (reader, registry) = try await Self.reader()
        var policy = SessionPolicy()
        policy.transmissionProtocol = .t1
        // The simulated contactless card's ATR offers T=1: pcscd connects with it.
        let status = try await reader.withSession(policy: policy) { session in
            try await session.send(try CommandAPDU(bytes: SimulatedCard.selectApplication)).statusWord
        }
        #expect(status == .success)
        await registry.close()
    }

    @Test func pcscErrorsClassifyCardLoss() {
        #expect(PCSCError.failed(.connect, .noSmartcard).cardLoss == .noCard)
        #expect(PCSCError.failed(.transmit, .removedCard).cardLoss == .notResponding)
        #expect(PCSCError.failed(.connect, .unresponsiveCard).cardLoss == .notActivated)
        #expect(PCSCError.failed(.transmit, .resetCard).cardLoss == .notPowered)
        #expect(!PCSCError.failed(.transmit, .sharingViolation).meansCardLost)
    }
}

/// A card lifted in the middle of a flow, through pcscd: Scripts/pcsc-backend-check.sh's third
/// phase runs this suite alone under `cardctl simulate --card iso7816,lift-after=1,return-after=1500`
/// (the first step's APDU passes, the card leaves, and comes back; the reader answers the
/// identity read, GET DATA FF CA, itself, so it does not count).
@Suite(.serialized, .enabled(if: PCSCTestEnvironment.hasPCSCD, PCSCTestEnvironment.skipReason))
struct PCSCCardRemovalFlowTests {
    typealias Environment = PCSCTestEnvironment

    @Test func aFlowResumesWhenTheCardComesBack() async throws {
        _ = try #require(
            Environment.liftAfter,
            """
            CARDFLOW_PCSC_LIFT_AFTER is unset: this suite runs in Scripts/pcsc-backend-check.sh's third phase
            """)
        let (reader, registry) = try await PCSCBackendReaderDriverTests.reader()
        var policy = SessionPolicy()
        policy.cardReturnTimeout = .seconds(20)
        let select = try CommandAPDU(bytes: SimulatedCard.selectApplication)
        let flow = Flow.start("first") { session in try await session.send(select).statusWord }
            .then("second") { _, session in try await session.send(select).data }
        let run = reader.run(flow, policy: policy)
        let progress = run.progress
        let watched = Task {
            var seen: [FlowEvent] = []
            for await event in progress { seen.append(event) }
            return seen
        }
        #expect(
            try await Environment.within(.seconds(30), "the flow") { try await run.value }
                == SimulatedCard.applicationFCI)
        let seen = await watched.value
        #expect(
            seen.contains { if case .cardLost = $0 { true } else { false } }, "the flow saw the card leave: \(seen)")
        await registry.close()
    }
}
