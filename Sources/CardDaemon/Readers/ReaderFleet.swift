import CCID
import CardFlow
import CardFlowCCID
import CardFlowPCSC
import CardFlowVPCD
import Logging
import ReaderSelection
import VPCD

/// Every reader the configuration names, each with its own ``ReaderSupervisor``: USB readers
/// as they are plugged in and out (hotplug), vpcd and pcsc readers, and the readers of the
/// injected ``/ReaderSelection/ReaderSource``s (`sim:` selectors when cardd passes the simulator's).
public actor ReaderFleet {
    private let jobs: JobCenter
    private let bus: EventBus
    private let metrics: DaemonMetrics
    private let logger: Logger
    private let configuration: @Sendable () async -> DaemonConfiguration
    private var supervisors: [String: (reader: Reader, task: Task<Void, Never>)] = [:]
    /// Supervisors cancelled with their reader, until they have stopped and readerRemoved is
    /// published: a reader plugged in again under the same id waits for them, so the bus never
    /// shows the old reader's last events (a job it was finishing) after the new one's arrival.
    private var retiring: [String: (number: UInt64, task: Task<Void, Never>)] = [:]
    private var retirements: UInt64 = 0
    private var registryTasks: [Task<Void, Never>] = []
    private var usbRegistry: USBReaderRegistry?
    /// The reader sources whose selectors the configuration may name.
    private let sources: [any ReaderSource]
    /// Runs `fleet` rules (nil when the daemon is not in a fleet).
    private var fleetWorker: FleetWorker?
    /// What the sources opened, closed at ``stop()`` (the simulator saves its card state then).
    private var opened: [(selector: String, readers: OpenedReaders)] = []
    private var vpcdListeners: [VPCDListener] = []
    private var pcscRegistries: [PCSCReaderRegistry] = []

    /// - Parameters:
    ///   - jobs: where the supervisors run their jobs.
    ///   - bus: where readers and cards are reported.
    ///   - metrics: the daemon's metrics.
    ///   - sources: the reader sources beyond usb, vpcd and pcsc whose selectors are accepted.
    ///   - logger: where the fleet logs.
    ///   - configuration: the configuration in force (the session policy comes from it).
    public init(
        jobs: JobCenter, bus: EventBus, metrics: DaemonMetrics, sources: [any ReaderSource] = [], logger: Logger,
        configuration: @escaping @Sendable () async -> DaemonConfiguration
    ) {
        self.sources = sources
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
    /// made) among them. A source's readers are numbered after those already there.
    public func start(selectors: [String], simulated: [Reader] = []) async throws {
        let managed = ManagedReaderRegistry(readers: simulated)
        var usbSelectors: [ReaderSelector] = []
        for text in selectors {
            let selector = try ReaderSelector(parsing: text, sources: sources)
            switch selector {
            case .source(let source, let text):
                let readers = try await source.open(
                    text,
                    options: ReaderSourceOptions(
                        logger: logger, firstIndex: await managed.readers().count))
                opened.append((text, readers))
                for reader in readers.readers { await managed.add(reader) }
            case .vpcd(let host, let port):
                // A network reader: cardd listens, and a card side (vicc, the phone app) connects.
                let listener = try await VPCDListener.bind(host: host, port: port, logger: logger)
                vpcdListeners.append(listener)
                await managed.add(Reader(vpcd: listener, logger: logger))
            case .pcsc:
                // pcscd owns the readers; they come and go with its plug-and-play notices.
                let registry = try await PCSCReaderRegistry(logger: logger) { name in
                    selector.accepts(PCSCReaderDriver.info(reader: name))
                }
                pcscRegistries.append(registry)
                watch(registry, accept: { _ in true })
            case .usb:
                usbSelectors.append(selector)
            }
        }
        watch(managed, accept: { _ in true })
        if !usbSelectors.isEmpty {
            let registry = try USBReaderRegistry(logger: logger)
            usbRegistry = registry
            let accepted = usbSelectors
            watch(registry) { info in accepted.contains { $0.accepts(info) } }
        }
    }

    /// Supervises every reader `registry` adds, until it removes them (the simulation's readers,
    /// which may be unplugged and replaced).
    public func watch(_ registry: ManagedReaderRegistry) {
        watch(registry, accept: { _ in true })
    }

    /// The readers supervised now.
    public func readers() -> [ReaderInfo] {
        supervisors.values.map(\.reader.info).sorted { $0.id < $1.id }
    }

    /// The reader with this id.
    public func reader(id: String) -> Reader? {
        supervisors[id]?.reader
    }

    /// Stops every supervisor, closes USB, and closes what the sources opened (the simulator
    /// saves its card states).
    public func stop() async {
        for task in registryTasks { task.cancel() }
        for entry in supervisors.values { entry.task.cancel() }
        for entry in supervisors.values { await entry.task.value }
        supervisors.removeAll()
        for retirement in retiring.values { await retirement.task.value }
        retiring.removeAll()
        await usbRegistry?.close()
        for listener in vpcdListeners { await listener.close() }
        vpcdListeners.removeAll()
        for registry in pcscRegistries { await registry.close() }
        pcscRegistries.removeAll()
        for (selector, readers) in opened {
            do { try await readers.close() } catch {
                logger.error("could not close the readers", metadata: ["selector": "\(selector)", "error": "\(error)"])
            }
        }
        opened.removeAll()
    }

    private func watch(_ registry: any ReaderRegistry, accept: @escaping @Sendable (ReaderInfo) -> Bool) {
        registryTasks.append(
            Task {
                for await event in await registry.events() {
                    switch event {
                    case .added(let reader) where accept(reader.info): await self.add(reader)
                    case .added: continue
                    case .removed(let info): await self.remove(info.id)
                    }
                }
            })
    }

    /// Starts supervising `reader`: readerAdded is on the bus before the supervisor can
    /// publish the reader's first card.
    private func add(_ reader: Reader) async {
        let id = reader.info.id
        if supervisors[id] != nil { retire(id) }
        if let retirement = retiring[id] { await retirement.task.value }
        let supervisor = ReaderSupervisor(
            reader: reader, configuration: configuration, jobs: jobs, bus: bus,
            metrics: metrics, policy: await policy(), fleet: fleetWorker, logger: logger)
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
