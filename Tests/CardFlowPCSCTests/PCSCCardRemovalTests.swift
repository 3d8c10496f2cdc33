import CardFlowPCSCLite
import Testing

/// A card that leaves and comes back, through pcscd: Scripts/pcsc-backend-check.sh's second phase
/// runs this suite alone under `cardctl simulate --card iso7816,lift-after=N,return-after=MS`
/// and passes N and MS in CARDFLOW_PCSC_LIFT_AFTER and CARDFLOW_PCSC_RETURN_AFTER_MS. The lift
/// counts every APDU that reaches the card, which is why nothing else may run beside it.
@Suite(.serialized, .pcscContextsReleased, .enabled(if: PCSCTestEnvironment.hasPCSCD, PCSCTestEnvironment.skipReason))
struct PCSCCardRemovalTests {
    typealias Environment = PCSCTestEnvironment

    @Test func aRemovedCardGivesTypedErrorsAndComesBack() async throws {
        let liftAfter = try #require(
            Environment.liftAfter,
            """
            CARDFLOW_PCSC_LIFT_AFTER is unset: this suite runs in Scripts/pcsc-backend-check.sh's removal phase \
            (swift test --filter PCSCCardRemovalTests under cardctl simulate --card iso7816,lift-after=N)
            """)
        let returnAfter = Environment.returnAfter ?? .seconds(2)
        let context = try await Environment.context()
        let reader = try await Environment.simulatedReader(context)
        let watch = PCSCReaderMonitor(reader: reader, logger: Environment.logger).watch()
        try await Environment.watching(watch) { events in
            let present = PCSCCardPresence.present(atr: Environment.simulatedATR)
            #expect(try await events.next() == present)

            let card = try await context.connect(reader: reader)
            for _ in 0..<liftAfter {
                #expect(
                    try await card.transmit(SimulatedCard.selectApplication) == SimulatedCard.applicationFCI
                        + SimulatedCard.ok)
            }
            // The card left after the last of those.
            #expect(try await events.next() == .absent)
            await #expect(throws: PCSCError.failed(.transmit, .removedCard)) {
                try await card.transmit(SimulatedCard.selectApplication)
            }
            await #expect(throws: PCSCError.failed(.connect, .noSmartcard)) {
                try await context.connect(reader: reader)
            }

            // It comes back after returnAfter.
            let start = ContinuousClock.now
            #expect(try await events.next() == present)
            #expect(ContinuousClock.now - start < returnAfter + .seconds(5))
            try? await card.disconnect()
            let again = try await context.connect(reader: reader)
            #expect(try await again.status().atr == Environment.simulatedATR)
            #expect(
                try await again.transmit(SimulatedCard.selectApplication) == SimulatedCard.applicationFCI
                    + SimulatedCard.ok
            )
            try await again.disconnect()
        }
    }
}
