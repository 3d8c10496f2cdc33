import CardFlow
import CardFlowDaemon
import CardFlowDaemonControl
import CardFlowDaemonFlows
import CardFlowSimulatorReaders
import CardFlowVPCD
import Foundation
import Logging

/// Starts a ``CardFlowDaemon`` on a temporary socket and job log, runs a test body, and stops it
/// (shared by the daemon's and the relay's tests).
public struct DaemonHarness: Sendable {
    /// The reader sources the daemon takes unless a test gives its own: vpcd and the simulator.
    public static let readerSources: [any ReaderSource] = [VPCDReaderSource(), SimulatorReaderSource()]

    public let socket: String
    public let daemon: CardDaemon

    /// What went wrong around the test body.
    public enum Failure: Error, CustomStringConvertible {
        case noJobLog
        case didNotStart
        case jobWaitTimedOut
        case socketLeftBehind(String)

        public var description: String {
            switch self {
            case .noJobLog: "the daemon has no job log"
            case .didNotStart: "the daemon ended before it was ready"
            case .jobWaitTimedOut: "no job matched in time"
            case .socketLeftBehind(let path): "the socket file \(path) was not removed at shutdown"
            }
        }
    }

    /// Runs `body` against a daemon with these readers (`sim:` selectors too: the harness gives
    /// the daemon the simulator's reader source), rules and key store; throws when the
    /// daemon leaves its socket file behind at shutdown.
    public static func run(
        readers: [String], rules: [CardRule] = [CardRule(name: "report", flow: .report)],
        keys: (any KeyStore)? = nil, metricsPort: Int? = nil,
        _ body: (DaemonHarness) async throws -> Void
    ) async throws {
        try await run(
            configuration: DaemonConfiguration(readers: readers, metricsPort: metricsPort, rules: rules),
            keys: keys, body)
    }

    /// Runs `body` against a daemon with this configuration, plus readers the test made itself
    /// (over `VirtualCCIDReader`s it drives: cards in and out, faults).
    public static func run(
        configuration: DaemonConfiguration, simulatedReaders: [Reader] = [],
        keys: (any KeyStore)? = nil, limits: DaemonLimits = DaemonLimits(), logger: Logger? = nil,
        fleetMembership: FleetMembership? = nil, readerSources: [any ReaderSource] = DaemonHarness.readerSources,
        flowKinds: DaemonFlowKinds = .standard, cardFamilies: CardFamilyDetection = CardFamilyDetection([]),
        _ body: (DaemonHarness) async throws -> Void
    ) async throws {
        let folder = NSTemporaryDirectory() + "cardd-test-\(UUID().uuidString.prefix(8))"
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let (ready, readyContinuation) = AsyncStream<Void>.makeStream()
        var defaultLogger = Logger(label: "cardd.test")
        defaultLogger.logLevel = .warning
        let logger = logger ?? defaultLogger
        let daemon = try CardDaemon(
            configuration: ConfigurationStore(
                configuration, path: nil, flowKinds: flowKinds, cardFamilies: cardFamilies),
            socketPath: folder + "/cardd.sock", jobLogPath: folder + "/jobs.sqlite", keys: keys,
            simulatedReaders: simulatedReaders, readerSources: readerSources, limits: limits,
            fleetMembership: fleetMembership, logger: logger, onReady: { readyContinuation.yield() })
        // A daemon that fails to start ends the wait for readiness instead of hanging it.
        let task = Task {
            defer { readyContinuation.finish() }
            try await daemon.run()
        }
        var started = false
        for await _ in ready {
            started = true
            break
        }
        guard started else {
            try await task.value
            throw Failure.didNotStart
        }
        do {
            try await body(DaemonHarness(socket: folder + "/cardd.sock", daemon: daemon))
        } catch {
            task.cancel()
            _ = try? await task.value
            throw error
        }
        task.cancel()
        _ = try? await task.value
        if FileManager.default.fileExists(atPath: folder + "/cardd.sock") {
            throw Failure.socketLeftBehind(folder + "/cardd.sock")
        }
    }

    /// Polls the job log until a job satisfies `condition` (bounded at 30 s by default: a hang
    /// fails, load does not).
    public func waitForJob(within bound: Duration = .seconds(30), _ condition: (JobRecord) -> Bool) async throws
        -> JobRecord
    {
        guard let log = daemon.jobLog else { throw Failure.noJobLog }
        let deadline = ContinuousClock.now + bound
        while ContinuousClock.now < deadline {
            if let record = try await log.jobs(limit: 100).first(where: condition) { return record }
            try await Task.sleep(for: .milliseconds(20))
        }
        throw Failure.jobWaitTimedOut
    }
}
