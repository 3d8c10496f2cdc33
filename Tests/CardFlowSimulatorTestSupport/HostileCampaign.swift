import CardFlow
import CardFlowSimulatorCards
import Foundation

/// Runs a card client against many seeded hostile cards and reports how each session ended:
/// success, an error the client is expected to throw (typed, from its layer or below), or a
/// failure — an unexpected error type, the APDU budget or the deadline exceeded — with the seed
/// that reproduces it.
///
/// ```swift
/// let campaign = HostileCampaign(name: "NDEF Type 4", sessions: HostileCampaign.sessionCount(default: 2_000))
/// let report = await campaign.run(
///     card: { seed in HostileCard(configuration: .init(seed: seed), wrapping: NDEFType4Tag(seed: seed)) },
///     isExpected: { $0 is NDEFTagError || $0 is CardStatusError }
/// ) { channel, _ in
///     _ = try await Type4Tag(channel: channel).readMessageBytes()
/// }
/// #expect(report.failures.isEmpty, "\(report)")
/// ```
public struct HostileCampaign: Sendable {
    /// A session that did not end in success or an expected error.
    public struct Failure: Sendable, CustomStringConvertible {
        public let seed: UInt64
        public let reason: String
        public var description: String { "seed \(seed): \(reason)" }
    }

    /// How the sessions ended.
    public struct Report: Sendable, CustomStringConvertible {
        public let name: String
        public internal(set) var sessions = 0
        public internal(set) var successes = 0
        /// Expected errors by type name.
        public internal(set) var expectedErrors: [String: Int] = [:]
        public internal(set) var failureCount = 0
        /// The first failures (at most 20 are kept).
        public internal(set) var failures: [Failure] = []
        public internal(set) var apdus = 0
        public internal(set) var elapsed: Duration = .zero

        /// One line: the counts, the expected errors by type, the time.
        public var summaryLine: String {
            let errors = expectedErrors.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(
                separator: ", ")
            let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
            return
                "\(name): \(sessions) sessions, \(apdus) APDUs in \(String(format: "%.1f", seconds)) s: \(successes) succeeded, "
                + "\(sessions - successes - failureCount) expected errors (\(errors)), \(failureCount) failures"
        }

        public var description: String {
            failures.reduce(summaryLine) { $0 + "\n  \($1)" }
        }

        mutating func merge(_ other: Report) {
            sessions += other.sessions
            successes += other.successes
            for (key, value) in other.expectedErrors { expectedErrors[key, default: 0] += value }
            failureCount += other.failureCount
            failures += other.failures.prefix(max(0, 20 - failures.count))
            apdus += other.apdus
        }
    }

    public let name: String
    public let sessions: Int
    public let firstSeed: UInt64
    /// APDUs one session may send.
    public let budget: Int
    /// Time one session may take.
    public let deadline: Duration
    /// Sessions run at the same time.
    public let parallelism: Int

    public init(
        name: String, sessions: Int, firstSeed: UInt64 = 1, budget: Int = 2_000, deadline: Duration = .seconds(10),
        parallelism: Int = 2
    ) {
        self.name = name
        self.sessions = max(0, sessions)
        self.firstSeed = firstSeed
        self.budget = budget
        self.deadline = deadline
        self.parallelism = max(1, parallelism)
    }

    /// The number of sessions to run: `CARDFLOW_CAMPAIGN_SESSIONS` when set (a whole number),
    /// else `defaultCount`, so CI stays quick and a long run is one variable away.
    public static func sessionCount(default defaultCount: Int) -> Int {
        guard let text = ProcessInfo.processInfo.environment["CARDFLOW_CAMPAIGN_SESSIONS"], let count = Int(text),
            count >= 0
        else {
            return defaultCount
        }
        return count
    }

    /// Runs `session` once per seed on a `BudgetedCardChannel` over `card(seed)`.
    public func run(
        card: @escaping @Sendable (UInt64) -> any VirtualCard,
        isExpected: @escaping @Sendable (any Error) -> Bool,
        session: @escaping @Sendable (any CardChannel, UInt64) async throws -> Void
    ) async -> Report {
        let started = ContinuousClock.now
        let lanes = min(parallelism, max(sessions, 1))
        var report = await withTaskGroup(of: Report.self) { group in
            for lane in 0..<lanes {
                group.addTask {
                    var lanes = Report(name: name)
                    var index = lane
                    while index < sessions {
                        let seed = firstSeed &+ UInt64(index)
                        lanes.merge(await runOne(seed: seed, card: card, isExpected: isExpected, session: session))
                        index += parallelism
                    }
                    return lanes
                }
            }
            var total = Report(name: name)
            for await part in group { total.merge(part) }
            return total
        }
        report.elapsed = ContinuousClock.now - started
        return report
    }

    /// Runs `session` against `wrapped(seed)` spoiled by a ``HostileCard``: `hostilePercent` of
    /// its answers replaced by hostile ones (with the default sticky modes), or none at all when
    /// `hostilePercent` is 0 — the control run that shows the sessions reach deep into the client.
    public func run(
        spoiling hostilePercent: Int, of wrapped: @escaping @Sendable (UInt64) -> any VirtualCard,
        isExpected: @escaping @Sendable (any Error) -> Bool,
        session: @escaping @Sendable (any CardChannel, UInt64) async throws -> Void
    ) async -> Report {
        await run(
            card: { seed in
                let configuration =
                    hostilePercent == 0
                    ? HostileCardConfiguration(seed: seed, hostilePercent: 0, stickyPercent: 0)
                    : HostileCardConfiguration(seed: seed, hostilePercent: hostilePercent)
                return HostileCard(configuration: configuration, wrapping: wrapped(seed))
            }, isExpected: isExpected, session: session)
    }

    /// Runs `session` against cards that only misbehave (no card behind the ``HostileCard``).
    public func runAgainstHostileCardsOnly(
        isExpected: @escaping @Sendable (any Error) -> Bool,
        session: @escaping @Sendable (any CardChannel, UInt64) async throws -> Void
    ) async -> Report {
        await run(
            card: { seed in HostileCard(configuration: HostileCardConfiguration(seed: seed)) }, isExpected: isExpected,
            session: session)
    }

    private func runOne(
        seed: UInt64, card: @Sendable (UInt64) -> any VirtualCard, isExpected: @Sendable (any Error) -> Bool,
        session: @Sendable (any CardChannel, UInt64) async throws -> Void
    ) async -> Report {
        var report = Report(name: name)
        report.sessions = 1
        let channel = BudgetedCardChannel(card: card(seed), budget: budget, deadline: deadline)
        var outcome: (any Error)?
        do {
            try await session(channel, seed)
        } catch {
            outcome = error
        }
        if let exceeded = await channel.limitExceeded {
            // Whatever the client made of it, the session went over its limits.
            report.failureCount = 1
            report.failures = [
                Failure(
                    seed: seed, reason: "\(exceeded)" + (outcome.map { ", ended with \(type(of: $0)): \($0)" } ?? ""))
            ]
        } else if let error = outcome {
            if isExpected(error) {
                report.expectedErrors[String(describing: type(of: error))] = 1
            } else {
                report.failureCount = 1
                report.failures = [Failure(seed: seed, reason: "unexpected \(type(of: error)): \(error)")]
            }
        } else {
            report.successes = 1
        }
        report.apdus = await channel.apduCount
        return report
    }
}
