import CardFlow
import CardFlowFleet
import Foundation
import Logging
import NIOCore
import ServiceLifecycle
import UnixSignals

/// The daemon as a swift-service-lifecycle `Service`: readers and their supervisors, the job
/// log, the control socket, a ``ReaderSimulation`` (`cardd --simulate`), and `SIGHUP` reloads.
///
/// On graceful shutdown (`SIGTERM`/`SIGINT` through the `ServiceGroup`) running jobs are
/// cancelled (the APDU in flight is aborted and the card powered off), readers are released,
/// and the socket file is removed. Run it in a group:
///
/// ```swift
/// let daemon = try CardDaemon(configuration: store, logger: logger)
/// let group = ServiceGroup(configuration: .init(
///     services: [.init(service: daemon, successTerminationBehavior: .gracefullyShutdownGroup)],
///     gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
/// try await group.run()
/// ```
public struct CardDaemon: Service {
    public let configuration: ConfigurationStore
    public let socketPath: String
    public let jobLog: JobLog?
    public let bus = EventBus()
    public let metrics: DaemonMetrics
    public let jobs: JobCenter
    public let fleet: ReaderFleet
    /// This host's part in a fleet of cardd hosts (configuration `fleet`), when it has one.
    public let fleetWorker: FleetWorker?
    let simulation: (any ReaderSimulation)?
    /// Readers the embedding program made itself (tests, the soak), supervised like `sim:` readers.
    let simulatedReaders: [Reader]
    /// Bounds on connections, requests, lines, nesting and job-log events.
    public let limits: DaemonLimits
    /// The loopback port `GET /metrics` is served on, once bound (configuration `metricsPort`).
    public let metricsEndpoint = MetricsEndpoint()
    let logger: Logger
    /// Called once the socket listens (tests and the terminal progress view wait for it).
    let onReady: @Sendable () async -> Void
    /// Told when the daemon is ready, reloading and stopping (a `Type=notify` systemd unit).
    let systemd: SystemdNotifier?

    /// - Parameters:
    ///   - simulation: simulated readers and what moves their cards (`--simulate`), which replace
    ///     the configured readers.
    ///   - configuration: the configuration in force, reloaded on `SIGHUP`.
    ///   - socketPath: where the control socket listens.
    ///   - jobLogPath: nil runs without a persistent log (the `jobs` request then fails).
    ///   - keys: where flows take their keys (by slot); nil when no flow needs any.
    ///   - simulatedReaders: readers made by the caller (for example over a `VirtualCCIDReader`
    ///     a test drives), supervised in addition to the configured ones.
    ///   - readerSources: the reader sources whose selectors the configuration may name (cardd
    ///     passes usb, pcsc, vpcd and the simulator's).
    ///   - limits: bounds on what clients and counterparts can make the daemon hold.
    ///   - metrics: the daemon's own metrics.
    ///   - systemd: where to send `READY=1`, `RELOADING=1` and `STOPPING=1`; cardd passes
    ///     ``SystemdNotifier/init(environment:)``, which is nil outside a `Type=notify` unit.
    ///   - fleetMembership: the fleet store and settings when the configuration has a `fleet`
    ///     block (cardd builds a `CardFlowFleetPostgres.FleetStore`).
    ///   - logger: where the daemon logs.
    ///   - onReady: called once the socket listens.
    public init(
        configuration: ConfigurationStore, socketPath: String, jobLogPath: String?, keys: (any KeyStore)? = nil,
        simulation: (any ReaderSimulation)? = nil, simulatedReaders: [Reader] = [],
        readerSources: [any ReaderSource] = [], limits: DaemonLimits = DaemonLimits(),
        metrics: DaemonMetrics = DaemonMetrics(), systemd: SystemdNotifier? = nil,
        fleetMembership: FleetMembership? = nil,
        logger: Logger, onReady: @escaping @Sendable () async -> Void = {}
    ) throws {
        self.configuration = configuration
        self.socketPath = socketPath
        self.jobLog = try jobLogPath.map { try JobLog(path: $0) }
        self.metrics = metrics
        self.simulation = simulation
        self.simulatedReaders = simulatedReaders
        self.limits = limits
        self.logger = logger
        self.onReady = onReady
        self.systemd = systemd
        let bus = self.bus
        jobs = JobCenter(
            log: jobLog, keys: keys, bus: bus, metrics: metrics, logger: logger,
            maximumEventsPerJob: limits.maximumEventsPerJob)
        let fleet = ReaderFleet(
            jobs: jobs, bus: bus, metrics: metrics, sources: readerSources, logger: logger,
            configuration: { [configuration] in await configuration.current }, families: configuration.cardFamilies)
        self.fleet = fleet
        let jobLog = self.jobLog
        fleetWorker = fleetMembership.map { membership in
            FleetWorker(
                settings: membership.settings, queue: membership.queue, log: jobLog, metrics: metrics,
                version: CardFlowVersion.current, readers: { await fleet.readers().map(\.id) },
                reportClock: membership.reportClock, reportInterval: membership.reportInterval, logger: logger)
        }
    }

    public func run() async throws {
        // Trap SIGHUP before anything can see the daemon: the sequence's init returns once the
        // handler is registered, so a reload sent as soon as the socket exists is not the
        // default action (terminate) or lost.
        let hangups = await UnixSignalsSequence(trapping: .sighup)
        if let error = await configuration.familiesError() { throw error }
        // The fleet worker (and its store's connection pool) runs detached from the service
        // group: graceful shutdown would otherwise close the pool at once, before running jobs
        // are cancelled and their completions reach the outbox and the store. shutdown() stops
        // it last.
        let fleetTask = fleetWorker.map { worker in Task.detached { await worker.run() } }
        // A start that fails below (a reader selector, the socket) does not leave it running.
        var startedUp = false
        defer { if !startedUp { fleetTask?.cancel() } }
        if let fleetWorker { await fleet.join(fleetWorker) }
        let selectors = simulation == nil ? await configuration.current.readers : []
        try await fleet.start(selectors: selectors, simulated: simulatedReaders)
        if let simulation { await fleet.watch(simulation.registry) }
        let server = ControlServer(
            path: socketPath,
            handler: ControlRequestHandler(
                fleet: fleet, jobs: jobs, bus: bus, log: jobLog, metrics: metrics,
                flowKinds: configuration.flowKinds), logger: logger, limits: limits)
        let channel = try await server.bind()
        logger.info("cardd listening", metadata: ["socket": "\(socketPath)"])
        let metricsServer = MetricsHTTPServer(metrics: metrics, logger: logger)
        let metricsChannel: NIOAsyncChannel<MetricsHTTPServer.Connection, Never>?
        if let port = await configuration.current.metricsPort {
            let bound = try await metricsServer.bind(port: port)
            metricsChannel = bound
            await metricsEndpoint.set(bound.channel.localAddress?.port)
            logger.info(
                "metrics served",
                metadata: ["url": "http://127.0.0.1:\(bound.channel.localAddress?.port ?? port)/metrics"])
        } else {
            metricsChannel = nil
        }
        startedUp = true
        await onReady()
        // Only now: `systemctl start` returns on READY=1, and clients then expect the socket.
        notifySystemd("READY=1\nSTATUS=listening on \(socketPath)")
        do {
            try await cancelWhenGracefulShutdown {
                try await withThrowingTaskGroup(of: Void.self) { group in
                    group.addTask { try await server.serve(channel) }
                    if let metricsChannel { group.addTask { try await metricsServer.serve(metricsChannel) } }
                    group.addTask { await self.reloadOnHangup(hangups) }
                    if let simulation {
                        try await simulation.run(bus: bus)
                        // A bounded simulation (--arrivals) ends the daemon once its last job is done.
                        await jobs.waitUntilIdle()
                        if simulation.isBounded { group.cancelAll() }
                    }
                    try await group.next()
                    group.cancelAll()
                }
            }
        } catch is CancellationError {
            // Shutdown.
        } catch {
            await shutdown(fleetTask: fleetTask)
            throw error
        }
        await shutdown(fleetTask: fleetTask)
    }

    private func shutdown(fleetTask: Task<Void, Never>?) async {
        notifySystemd("STOPPING=1")
        logger.info("cardd stopping: cancelling jobs and releasing readers")
        await jobs.cancelAll()
        await fleet.stop()
        if let fleetTask, let fleetWorker {
            // Completions of the jobs just cancelled go to the store now if it answers; the
            // outbox keeps them otherwise.
            await fleetWorker.deliverOutbox()
            // Host reports go in batches: the last counts of this run reach the hosts table now.
            await fleetWorker.flushReport()
            fleetTask.cancel()
            await fleetTask.value
        }
        await bus.finish()
        unlink(socketPath)
    }

    private func reloadOnHangup(_ hangups: UnixSignalsSequence) async {
        for await _ in hangups {
            notifySystemd("RELOADING=1\nMONOTONIC_USEC=\(Self.monotonicMicroseconds())")
            await configuration.reload(logger: logger)
            notifySystemd("READY=1")
        }
    }

    private func notifySystemd(_ state: String) {
        guard let systemd else { return }
        do {
            try systemd.notify(state)
        } catch {
            logger.warning("cannot tell systemd the daemon's state", metadata: ["error": "\(error)"])
        }
    }

    /// CLOCK_MONOTONIC in microseconds, which systemd wants beside RELOADING=1.
    private static func monotonicMicroseconds() -> UInt64 {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return UInt64(now.tv_sec) * 1_000_000 + UInt64(now.tv_nsec) / 1_000
    }
}

/// Where the metrics HTTP server listens, once it does.
public actor MetricsEndpoint {
    public private(set) var port: Int?
    func set(_ port: Int?) { self.port = port }
}

/// A daemon's place in a fleet: its settings and the store the hosts share.
public struct FleetMembership: Sendable {
    public var settings: FleetSettings
    public var queue: any FleetQueue
    /// Paces the host's reports to the hosts table (tests substitute a `ManualClock`).
    public var reportClock: any ElapsedClock = RealClock()
    /// The least time between two reports: the hosts table is written once per interval at
    /// most, not once per card.
    public var reportInterval: Duration = .seconds(1)

    public init(settings: FleetSettings, queue: any FleetQueue) {
        self.settings = settings
        self.queue = queue
    }
}
