import CardFlow

/// `cardctl bench ops`: per-operation timings of the card families CardFlow knows, with the
/// APDUs each operation exchanges.
///
/// Each operation runs ``OperationsPlan/warmup`` times unrecorded, then
/// ``OperationsPlan/iterations`` times timed with the clock (`now()` before and after); its
/// APDUs (GET RESPONSE and 0xAF continuation frames included) are counted on the channel.
/// Writes run only with ``OperationsPlan/allowWrite`` and leave the card's content as it was.
///
/// ```swift
/// let result = try await reader.withSession { session in
///     guard let family = try await OperationsBench.detectFamily(session: session) else { return nil }
///     return try await OperationsBench.run(family: family, channel: session, plan: OperationsPlan(),
///                                          clock: RealClock()) { fraction in showProgress(fraction) }
/// }
/// ```
public enum OperationsBench {
    /// Times the operations of `family` on the card behind `channel`.
    ///
    /// An operation that fails stops there: its measured runs are kept and a skipped row gives
    /// the error. Operations that cannot run (no write allowed, no PIN or key, a read-only tag,
    /// an application that already exists) are skipped rows with the reason. When the task is
    /// cancelled, the run stops early and returns what was measured (the DESFire bench
    /// application is still deleted); the caller marks the run interrupted.
    ///
    /// - Parameters:
    ///   - family: the card family to measure (see ``detectFamily(session:)``).
    ///   - channel: the card, usually a ``/CardFlow/CardSession``.
    ///   - plan: iterations, warm-up, whether to write, and the family's keys.
    ///   - clock: times each run.
    ///   - progress: the share of the run done (0...1), called after each run of an operation.
    /// - Returns: the measured operations and the skipped ones.
    /// - Throws: ``OperationsBenchError/invalidPlan(_:)`` before anything is sent; the channel's
    ///   error when the card is lost (``OperationsBenchError/benchApplicationLeft(reason:cardLoss:)``
    ///   when the DESFire bench application could not be deleted because of it).
    public static func run(
        family: BenchCardFamily, channel: any CardChannel, plan: OperationsPlan, clock: any ElapsedClock,
        progress: @escaping @Sendable (Double) -> Void = { _ in }
    ) async throws -> OperationsResult {
        try plan.validate()
        let counting = APDUCountingChannel(wrapping: channel)
        func recorder(planned: Int) -> OperationsRecorder {
            OperationsRecorder(
                channel: counting, clock: clock, plan: plan, plannedOperations: planned, progress: progress)
        }
        var operations: OperationsRecorder
        switch family {
        case .desfire:
            let bench = DESFireOperations(plan: plan)
            operations = recorder(planned: bench.plannedOperations)
            try await bench.run(&operations)
        case .ton:
            let bench = TONOperations(plan: plan)
            operations = recorder(planned: bench.plannedOperations)
            try await bench.run(&operations)
        case .ndef:
            let bench = NDEFOperations(plan: plan)
            operations = recorder(planned: bench.plannedOperations)
            try await bench.run(&operations)
        case .iso15693:
            let bench = ISO15693Operations(plan: plan)
            operations = recorder(planned: bench.plannedOperations)
            try await bench.run(&operations)
        }
        if !operations.interrupted { progress(1) }
        return operations.result(family: family)
    }

    /// The family of the card in `session`, from its ATR and harmless probes (TON applet
    /// SELECT, DESFire GetVersion, NDEF Tag Application SELECT, Type 2 capability container);
    /// nil when it is none of them. Nothing is written.
    ///
    /// - Parameter session: the card.
    /// - Throws: the channel's error when the card is lost, `CancellationError`.
    public static func detectFamily(session: CardSession) async throws -> BenchCardFamily? {
        try await detectFamily(atr: await session.identity.atr, channel: session)
    }

    /// The family of a card from its ATR and harmless probes over `channel`; nil when it is none
    /// of them. Nothing is written.
    ///
    /// - Parameters:
    ///   - atr: the card's ATR (a PC/SC part 3 storage-card ATR names ISO 15693 and Type 2 tags).
    ///   - channel: the card, for the probes.
    /// - Throws: the channel's error when the card is lost, `CancellationError`.
    public static func detectFamily(atr: [UInt8], channel: any CardChannel) async throws -> BenchCardFamily? {
        try await BenchCardFamily.detect(atr: atr, channel: channel)
    }
}
