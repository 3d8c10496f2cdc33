import CardFlow
import CardFlowDaemonControl
import Logging

/// Watches one reader: when a card arrives, finds the first rule that matches it and runs the
/// rule's flow as a job; the next card is handled after this one has left.
///
/// A reader error (unplugged, transfer failure) pauses the supervision of that reader, which
/// then asks the reader again; the fleet cancels the supervisor when the reader is unplugged and
/// starts a new one when it comes back.
public actor ReaderSupervisor {
    public nonisolated let reader: Reader
    private let rules: @Sendable () async -> DaemonConfiguration
    private let jobs: JobCenter
    private let bus: EventBus
    private let metrics: DaemonMetrics
    private let logger: Logger
    private let policy: SessionPolicy
    private let fleet: FleetWorker?
    private let families: CardFamilyDetection
    /// The presence the supervisor last acted on (published, and ran a job for when present).
    private var actedPresence: CardPresence = .absent

    public init(
        reader: Reader, configuration: @escaping @Sendable () async -> DaemonConfiguration, jobs: JobCenter,
        bus: EventBus, metrics: DaemonMetrics, policy: SessionPolicy, fleet: FleetWorker? = nil,
        families: CardFamilyDetection = CardFamilyDetection([]), logger: Logger
    ) {
        self.fleet = fleet
        self.families = families
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

    /// Runs until the task is cancelled (the fleet cancels it when the reader is unplugged).
    ///
    /// Two sources feed one sequence of presence observations: the reader's presence stream
    /// (its notifications) and a status request every ``presenceCheckInterval`` (as pcscd polls).
    /// The supervisor compares each observation with the presence it last acted on, so a change
    /// the stream lost (a notification the reader never sent or the driver dropped, a change
    /// published while the stream was being restarted) is still seen within one interval.
    ///
    /// When the reader's presence stream ends (a transfer error, an interrupt message the driver
    /// did not take), supervision does not end with it: the stream is opened again after a pause
    /// that doubles up to ``maximumRestartPause`` while it keeps ending at once, so a transient
    /// fault costs one pause and a dead reader one attempt every few seconds until the fleet
    /// removes it.
    public func run() async {
        actedPresence = .absent
        let clock = policy.clock
        let (observations, sink) = AsyncStream<CardPresence>.makeStream(bufferingPolicy: .bufferingNewest(16))
        let poller = Task { [reader, weak self] in
            // Only a poll that disagrees with what the supervisor last acted on is passed on: a
            // change the stream lost shows up, and a long job does not fill the buffer with
            // repeats that would push out the stream's real changes.
            while !Task.isCancelled {
                do { try await clock.suspend(until: clock.now() + Self.presenceCheckInterval) } catch { return }
                guard let now = try? await reader.currentPresence(), let self else { continue }
                if await self.actedPresence != now { sink.yield(now) }
            }
        }
        let watcher = Task { [reader, logger] in
            var pause = Self.firstRestartPause
            while !Task.isCancelled {
                let opened = clock.now()
                for await presence in await reader.cardPresence() { sink.yield(presence) }
                if Task.isCancelled { return }
                // Only a stream that lived a while was a working monitor worth a quick restart;
                // the state it replays when opened does not count (a dead reader would spin).
                if clock.now() - opened > Self.maximumRestartPause { pause = Self.firstRestartPause }
                logger.warning(
                    "card presence monitoring ended; asking the reader again", metadata: ["pause": "\(pause)"])
                do { try await clock.suspend(until: clock.now() + pause) } catch { return }
                pause = min(pause * 2, Self.maximumRestartPause)
            }
        }
        defer {
            poller.cancel()
            watcher.cancel()
            sink.finish()
        }
        for await presence in observations {
            if Task.isCancelled { break }
            guard presence != actedPresence else { continue }
            actedPresence = presence
            switch presence {
            case .absent:
                await bus.publish(.cardLeft(reader: reader.info.id))
            case .present:
                await bus.publish(.cardArrived(reader: reader.info.id))
                metrics.cardSeen(reader: reader.info.id)
                let job = await handleArrival()
                await bus.publish(.cardHandled(reader: reader.info.id, job: job))
            }
        }
    }

    static let firstRestartPause = Duration.milliseconds(50)
    /// How often the reader is asked for card presence besides its own notifications.
    public static let presenceCheckInterval = Duration.milliseconds(500)
    /// The longest pause between two attempts to watch a reader whose presence stream ended.
    public static let maximumRestartPause = Duration.seconds(5)

    /// Identifies the card and runs the matching rule's job to its end; returns the job's id
    /// (nil when none ran).
    private func handleArrival() async -> JobID? {
        let configuration = await rules()
        let aids = Set(configuration.rules.compactMap(\.match.aid))
        // Detection sends probes: only when some rule asks for a family.
        let detection = configuration.rules.contains { $0.match.family != nil } ? families : nil
        let facts: CardFacts
        do {
            facts = try await reader.withSession(policy: policy) { session in
                let identity = await session.identity
                var selectable: Set<[UInt8]> = []
                for aid in aids.sorted(by: { $0.lexicographicallyPrecedes($1) }) {
                    let select = try CommandAPDU(cla: 0x00, ins: 0xA4, p1: 0x04, p2: 0x00, data: aid, le: 256)
                    if try await session.send(select).statusWord == .success { selectable.insert(aid) }
                }
                let family = try await detection?.detect(atr: identity.atr, channel: session)
                return CardFacts(atr: identity.atr, uid: identity.uid, selectableAIDs: selectable, family: family)
            }
        } catch {
            logger.warning("could not identify the card", metadata: ["error": "\(error)"])
            return nil
        }
        guard let rule = configuration.rule(for: facts) else {
            logger.info("no rule matches the card", metadata: ["atr": "\(facts.atr.hexString)"])
            return nil
        }
        if let template = rule.flow.flow(as: FleetFlowTemplate.self) {
            guard let fleet else {
                logger.error("rule '\(rule.name)' runs fleet records, but the daemon has no fleet store")
                return nil
            }
            return await fleet.handle(
                card: facts, on: reader, rule: rule.name, template: template, jobs: jobs, policy: policy)
        }
        let id = await jobs.submit(rule.flow, on: reader, rule: rule.name, trigger: .card, policy: policy)
        let state = await jobs.wait(for: id)
        if let signal = state.flatMap({ rule.signals?.signal(after: $0) }) {
            // The job's outcome stands whatever the reader does with its light.
            do {
                try await reader.signal(signal)
            } catch {
                logger.warning(
                    "could not signal on the reader", metadata: ["signal": "\(signal)", "error": "\(error)"])
            }
        }
        return id
    }
}
