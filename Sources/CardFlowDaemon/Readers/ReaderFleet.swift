import CardFlow
import Logging

/// Every reader the configuration names, each with its own ``ReaderSupervisor``: the readers of
/// the injected ``/CardFlow/ReaderSource``s (cardd passes usb, pcsc, vpcd and the simulator's),
/// watched as they come and go where their backend can tell (USB hotplug, pcscd's plug-and-play).
public actor ReaderFleet {
    private let jobs: JobCenter
    private let bus: EventBus
    private let metrics: DaemonMetrics
    private let logger: Logger
    private let configuration: @Sendable () async -> DaemonConfiguration
    private var supervisors: [String: (reader: Reader, task: Task<Void, Never>)] = [:]
    private let families: CardFamilyDetection
    /// Readers being added (waiting for an earlier supervisor of their id to stop).
    private var arriving: [String: Reader] = [:]
    /// Supervisors cancelled with their reader, until they have stopped and readerRemoved is
    /// published: a reader plugged in again under the same id waits for them, so the bus never
    /// shows the old reader's last events (a job it was finishing) after the new one's arrival.
    private var retiring: [String: (number: UInt64, task: Task<Void, Never>)] = [:]
    private var retirements: UInt64 = 0
    private var registryTasks: [Task<Void, Never>] = []
    /// The reader sources whose selectors the configuration may name.
    private let sources: [any ReaderSource]
    /// Runs `fleet` rules (nil when the daemon is not in a fleet).
    private var fleetWorker: FleetWorker?
    /// What the sources opened, closed at ``stop()`` (the simulator saves its card state then).
    private var opened: [(selector: String, readers: OpenedReaders)] = []

    /// - Parameters:
    ///   - jobs: where the supervisors run their jobs.
    ///   - bus: where readers and cards are reported.
    ///   - metrics: the daemon's metrics.
    ///   - sources: the reader sources whose selectors are accepted.
    ///   - logger: where the fleet logs.
    ///   - configuration: the configuration in force (the session policy comes from it).
    ///   - families: the card-family detectors for rules that match on a family.
    public init(
        jobs: JobCenter, bus: EventBus, metrics: DaemonMetrics, sources: [any ReaderSource] = [], logger: Logger,
        configuration: @escaping @Sendable () async -> DaemonConfiguration,
        families: CardFamilyDetection = CardFamilyDetection([])
    ) {
        self.sources = sources
        self.families = families
        self.jobs = jobs
        self.bus = bus
        self.metrics = metrics
        self.logger = logger
        self.configuration = configuration
    }

    /// Gives `fleet` rules a worker; set before ``start(selectors:simulated:)``.
    public func join(_ worker: FleetWorker) {
        fleetWorker = worker
    }

    /// Opens what `selectors` name and starts watching, with `simulated` (readers the caller
    /// made) among them. The readers a source opens at once are numbered after those already
    /// there; a watching source's readers arrive through its registry.
    public func start(selectors: [String], simulated: [Reader] = []) async throws {
        let managed = ManagedReaderRegistry(readers: simulated)
        let parsed = try selectors.map { text throws(ReaderSelectorError) in
            try ReaderSelector(parsing: text, sources: sources)
        }
        for selector in parsed {
            let readers = try await selector.open(
                options: ReaderSourceOptions(logger: logger, firstIndex: await managed.readers().count, watch: true))
            opened.append((selector.text, readers))
            for reader in readers.readers { await managed.add(reader) }
            if let arrivals = readers.arrivals { follow(arrivals) }
        }
        follow(managed)
    }

    /// Supervises every reader `registry` adds, until it removes them (the simulation's readers,
    /// which may be unplugged and replaced).
    public func watch(_ registry: ManagedReaderRegistry) {
        follow(registry)
    }

    /// The readers supervised now.
    public func readers() -> [ReaderInfo] {
        supervisors.values.map(\.reader.info).sorted { $0.id < $1.id }
    }

    /// The reader with this id.
    public func reader(id: String) -> Reader? {
        supervisors[id]?.reader
    }

    /// Stops every supervisor and closes what the sources opened (USB and pcscd are released,
    /// the simulator saves its card states).
    public func stop() async {
        for task in registryTasks { task.cancel() }
        for entry in supervisors.values { entry.task.cancel() }
        for entry in supervisors.values { await entry.task.value }
        supervisors.removeAll()
        for retirement in retiring.values { await retirement.task.value }
        retiring.removeAll()
        for (selector, readers) in opened {
            do { try await readers.close() } catch {
                logger.error("could not close the readers", metadata: ["selector": "\(selector)", "error": "\(error)"])
            }
        }
        opened.removeAll()
    }

    private func follow(_ registry: any ReaderRegistry) {
        registryTasks.append(
            Task {
                for await event in await registry.events() {
                    switch event {
                    case .added(let reader): await self.add(reader)
                    case .removed(let info): await self.remove(info.id)
                    }
                }
            })
    }

    /// Starts supervising `reader`: readerAdded is on the bus before the supervisor can
    /// publish the reader's first card.
    private func add(_ reader: Reader) async {
        let id = reader.info.id
        // Two selectors that name the same reader (`usb` and `usb:072F:2200`) both announce it.
        if supervisors[id]?.reader === reader || arriving[id] === reader { return }
        arriving[id] = reader
        defer { if arriving[id] === reader { arriving[id] = nil } }
        if supervisors[id] != nil { retire(id) }
        if let retirement = retiring[id] { await retirement.task.value }
        let supervisor = ReaderSupervisor(
            reader: reader, configuration: configuration, jobs: jobs, bus: bus,
            metrics: metrics, policy: await policy(), fleet: fleetWorker, families: families, logger: logger)
        logger.info("reader added", metadata: ["reader": "\(id)", "name": "\(reader.info.name)"])
        await bus.publish(.readerAdded(id: id, name: reader.info.name))
        // Another add for this id may have run while this one waited.
        if supervisors[id] != nil { retire(id) }
        supervisors[id] = (reader, Task { await supervisor.run() })
        metrics.readers(supervisors.count)
    }

    private func remove(_ id: String) async {
        guard supervisors[id] != nil else { return }
        logger.info("reader removed", metadata: ["reader": "\(id)"])
        retire(id)
    }

    /// Cancels the reader's supervisor; readerRemoved follows once it has stopped.
    private func retire(_ id: String) {
        guard let entry = supervisors.removeValue(forKey: id) else { return }
        entry.task.cancel()
        metrics.readers(supervisors.count)
        let earlier = retiring[id]?.task
        retirements += 1
        let number = retirements
        let bus = self.bus
        retiring[id] = (
            number,
            Task {
                await earlier?.value
                await entry.task.value
                await bus.publish(.readerRemoved(id: id))
                await self.retired(id, number: number)
            }
        )
    }

    private func retired(_ id: String, number: UInt64) {
        // A later retirement of the same id waited for this one and stays until it is done.
        if retiring[id]?.number == number { retiring[id] = nil }
    }

    /// The session policy from the configuration: short connect timeout for triggered jobs, the
    /// configured cooldown, card-return bound and APDU and step deadlines.
    public func policy() async -> SessionPolicy {
        Self.policy(for: await configuration())
    }

    /// The session policy a configuration asks for.
    public static func policy(for configuration: DaemonConfiguration) -> SessionPolicy {
        var policy = SessionPolicy()
        policy.cooldown = .milliseconds(configuration.cooldownMilliseconds)
        policy.cardReturnTimeout = .milliseconds(configuration.cardReturnMilliseconds)
        policy.connectTimeout = .seconds(5)
        policy.apduTimeout = .milliseconds(configuration.apduTimeoutMilliseconds)
        policy.stepTimeout = .milliseconds(configuration.stepTimeoutMilliseconds)
        policy.transmissionProtocol = configuration.transmissionProtocol
        return policy
    }
}
