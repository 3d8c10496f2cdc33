import CardFlow
import Logging

/// Watches one reader: when a card arrives, finds the first rule that matches it and runs the
/// rule's flow as a job; the next card is handled after this one has left.
///
/// A reader error (unplugged, transfer failure) ends the supervision of that reader; the fleet
/// starts a new supervisor when the reader comes back.
public actor ReaderSupervisor {
    public nonisolated let reader: Reader
    private let rules: @Sendable () async -> DaemonConfiguration
    private let jobs: JobCenter
    private let bus: EventBus
    private let metrics: DaemonMetrics
    private let logger: Logger
    private let policy: SessionPolicy

    public init(reader: Reader, configuration: @escaping @Sendable () async -> DaemonConfiguration, jobs: JobCenter,
                bus: EventBus, metrics: DaemonMetrics, policy: SessionPolicy, logger: Logger) {
        self.reader = reader
        self.rules = configuration
        self.jobs = jobs
        self.bus = bus
        self.metrics = metrics
        self.policy = policy
        var logger = logger
        logger[metadataKey: "reader"] = "\(reader.info.id)"
        self.logger = logger
    }

    /// Runs until the task is cancelled or the reader's presence stream ends.
    public func run() async {
        var last: CardPresence = .absent
        for await presence in await reader.cardPresence() {
            if Task.isCancelled { break }
            guard presence != last else { continue }
            last = presence
            switch presence {
            case .absent:
                await bus.publish(.cardLeft(reader: reader.info.id))
            case .present:
                await bus.publish(.cardArrived(reader: reader.info.id))
                metrics.cardSeen(reader: reader.info.id)
                await handleArrival()
            }
        }
    }

    private func handleArrival() async {
        let configuration = await rules()
        let aids = Set(configuration.rules.compactMap(\.match.aid))
        let facts: CardFacts
        do {
            facts = try await reader.withSession(policy: policy) { session in
                let identity = await session.identity
                var selectable: Set<[UInt8]> = []
                for aid in aids.sorted(by: { $0.lexicographicallyPrecedes($1) }) {
                    let select = try CommandAPDU(cla: 0x00, ins: 0xA4, p1: 0x04, p2: 0x00, data: aid, le: 256)
                    if try await session.send(select).statusWord == .success { selectable.insert(aid) }
                }
                return CardFacts(atr: identity.atr, uid: identity.uid, selectableAIDs: selectable)
            }
        } catch {
            logger.warning("could not identify the card", metadata: ["error": "\(error)"])
            return
        }
        guard let rule = configuration.rule(for: facts) else {
            logger.info("no rule matches the card", metadata: ["atr": "\(facts.atr.hexString)"])
            return
        }
        let id = await jobs.submit(rule.flow, on: reader, rule: rule.name, trigger: .card, policy: policy)
        _ = await jobs.wait(for: id)
    }
}
