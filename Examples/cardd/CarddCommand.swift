import ArgumentParser
import CardFlow
import CardFlowDaemon
import CardFlowDaemonFlows
import CardFlowDaemonSimulation
import CardFlowFleet
import CardFlowFleetPostgres
import CardFlowSimulator
import Foundation
import Logging
import ServiceLifecycle

@main
struct CarddCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cardd",
        abstract: "Runs card flows on CCID readers as cards arrive, with a control socket and a job log.",
        discussion: """
            With --simulate, virtual cards of each kind arrive on simulated readers and leave again, \
            and the configured rules run on them (without --config: NDEF writes on Type 2 and 4 tags, block reads \
            on ISO 15693 tags, a report of every other card).
            Control socket: JSON lines, e.g. {"id":1,"op":"readers"}; see Examples/cardd/README.md.
            """,
        version: CardFlowVersion.current)

    @Option(name: .long, help: "Configuration file (JSON).")
    var config: String?

    @Option(
        name: .long,
        help: "Control socket path (default: /run/cardd/cardd.sock as root, else $XDG_RUNTIME_DIR/cardd.sock).")
    var socket: String?

    @Option(name: .long, help: "Job log (SQLite) path, or 'none'.")
    var jobLog: String?

    @Flag(name: .long, help: "Run against simulated readers and cards instead of the configured readers.")
    var simulate = false

    @Option(name: .long, help: "Simulated readers (--simulate).")
    var readers = 2

    @Option(name: .long, help: "Milliseconds a simulated card stays on its reader.")
    var dwell = 1500

    @Option(name: .long, help: "Milliseconds a simulated reader stays empty between cards.")
    var gap = 500

    @Option(name: .long, help: "Stop after this many simulated card arrivals (default: run until stopped).")
    var arrivals: Int?

    @Option(name: .long, help: "Simulated card kinds, comma-separated (default: every kind the simulator has).")
    var kinds: String?

    @Option(
        name: .long,
        help:
            "How simulated cards move: timed (--dwell/--gap) or handled (each leaves once cardd is done with it, the next comes at once: the soak)."
    )
    var pace: SimulationPacing = .timed

    @Option(
        name: .long,
        help:
            "Share of simulated card sessions (0 to 1) that meet a fault: garbage answers, lifted or swapped cards, stalls, mute cards, unplugged readers."
    )
    var misbehave: Double?

    @Option(name: .long, help: "The faults --misbehave draws from, comma-separated (default: all).")
    var faults: String?

    @Option(name: .long, help: "Seed of the simulated faults (--misbehave).")
    var seed: UInt64 = 1

    @Option(
        name: .long,
        help:
            "Added to every simulated card's seed (--simulate); seeds are base + 1000 × (reader + 1) + arrival, so daemons whose bases are 1000000 apart make different UIDs."
    )
    var cardSeedBase: UInt64 = 0

    @Option(name: .long, help: "Milliseconds added to every simulated APDU exchange (--simulate).")
    var latency = 0

    @Option(
        name: .long, help: "Per-APDU deadline in milliseconds (overrides the configuration's apduTimeoutMilliseconds).")
    var apduTimeout: Int?

    @Option(name: .long, help: "Per-flow-step deadline in milliseconds (overrides stepTimeoutMilliseconds).")
    var stepTimeout: Int?

    @Option(
        name: .long,
        help: "How long a flow waits for a lifted card, in milliseconds (overrides cardReturnMilliseconds).")
    var cardReturn: Int?

    @Option(name: .long, help: "Log format: plain or json.")
    var logFormat: LogFormat = .plain

    @Option(
        name: .long,
        help:
            "Log level: trace, debug, info, notice, warning, error, critical (default: info; warning under --simulate, which shows progress instead)."
    )
    var logLevel: String?

    @Flag(name: .long, help: "Do not print job progress on the terminal (--simulate prints it by default).")
    var quiet = false

    func validate() throws {
        if let logLevel, Logger.Level(rawValue: logLevel) == nil {
            throw ValidationError("unknown log level '\(logLevel)'")
        }
        if let arrivals, arrivals < 1 { throw ValidationError("--arrivals must be at least 1") }
        if readers < 1 || readers > 64 { throw ValidationError("--readers must be 1 to 64") }
        if !(0...60_000).contains(latency) { throw ValidationError("--latency must be 0 to 60000 ms") }
        if dwell < 0 || gap < 0 { throw ValidationError("--dwell and --gap must be >= 0") }
        if let misbehave, !(0...1).contains(misbehave) { throw ValidationError("--misbehave must be 0 to 1") }
        for (name, value) in [("--apdu-timeout", apduTimeout), ("--step-timeout", stepTimeout)] {
            if let value, !(1...DaemonConfiguration.maximumTimeoutMilliseconds).contains(value) {
                throw ValidationError("\(name) must be 1 to \(DaemonConfiguration.maximumTimeoutMilliseconds)")
            }
        }
        if let cardReturn, cardReturn < 0 { throw ValidationError("--card-return must be >= 0") }
        if let faults {
            for name in faults.split(separator: ",") where !SimulationFault.names.contains(String(name)) {
                throw ValidationError(
                    "unknown fault '\(name)'; known: \(SimulationFault.names.joined(separator: ", "))")
            }
        }
    }

    func run() async throws {
        let level = logLevel.flatMap(Logger.Level.init(rawValue:)) ?? (simulate && !quiet ? .warning : .info)
        let format = logFormat
        LoggingSystem.bootstrap { label in
            var handler: any LogHandler =
                format == .json ? JSONLineLogHandler(label: label) : StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
        let logger = Logger(label: "cardd")
        var configuration =
            simulate
            ? DaemonConfiguration.simulationDefault
            : DaemonConfiguration(rules: [CardRule(name: "report", flow: .report)])
        if let config {
            do {
                configuration = try DaemonConfiguration(contentsOfFile: config, flowKinds: .standard)
            } catch {
                throw ValidationError(error.description)
            }
        }
        if let apduTimeout { configuration.apduTimeoutMilliseconds = apduTimeout }
        if let stepTimeout { configuration.stepTimeoutMilliseconds = stepTimeout }
        if let cardReturn { configuration.cardReturnMilliseconds = cardReturn }
        var simulation: SimulationSchedule?
        if simulate {
            var chosen = SimulationSchedule.availableKinds
            if let kinds {
                chosen = try kinds.split(separator: ",").map { name in
                    guard let kind = SimulatedCardKind(rawValue: String(name)), kind != .none else {
                        throw ValidationError(
                            "unknown card kind '\(name)'; known: \(SimulationSchedule.availableKinds.map(\.rawValue).joined(separator: ", "))"
                        )
                    }
                    return kind
                }
            }
            simulation = try SimulationSchedule(
                readerCount: readers, kinds: chosen, dwell: .milliseconds(dwell),
                gap: .milliseconds(gap), arrivals: arrivals, pacing: pace,
                misbehaviour: misbehave.map { rate in
                    SimulationMisbehaviour(
                        rate: rate, seed: seed,
                        faults: faults.map { Set($0.split(separator: ",").map(String.init)) })
                }, cardSeedBase: cardSeedBase, latency: .milliseconds(latency),
                logger: logger)
        }
        let socketPath = socket ?? configuration.socket ?? DaemonConfiguration.defaultSocketPath()
        let logPath: String? =
            switch jobLog ?? configuration.jobLog {
            case "none": nil
            case let path?: path
            case nil: DaemonConfiguration.defaultJobLogPath()
            }
        let store = ConfigurationStore(configuration, path: config, flowKinds: .standard, cardFamilies: cardFamilies)
        let keys: (any KeyStore)? =
            if let path = configuration.keyStore {
                FileKeyStore(path: path)
            } else if simulate && config == nil {
                try await DaemonConfiguration.simulationKeys()
            } else {
                nil
            }
        let showProgress = simulate && !quiet
        var fleetMembership: FleetMembership?
        if let settings = configuration.fleet {
            let address: FleetDatabaseAddress
            do {
                address = try FleetDatabaseAddress(settings.postgres)
            } catch {
                throw ValidationError("fleet.postgres: \(error)")
            }
            fleetMembership = FleetMembership(
                settings: settings,
                queue: FleetStore(
                    address: address, operationTimeout: .seconds(settings.databaseTimeoutSeconds),
                    keepsConnections: true, logger: logger))
            logger.info(
                "joining the fleet",
                metadata: ["store": "\(address)", "batch": "\(settings.batch)", "host": "\(settings.hostName)"])
        }
        let daemon = try CardDaemon(
            configuration: store, socketPath: socketPath, jobLogPath: logPath, keys: keys,
            simulation: simulation, readerSources: readerSources,
            systemd: SystemdNotifier(), fleetMembership: fleetMembership, logger: logger)
        if showProgress {
            let events = await daemon.bus.subscribe()
            Task { await TerminalProgress().show(events) }
        }
        let group = ServiceGroup(
            configuration: .init(
                services: [.init(service: daemon, successTerminationBehavior: .gracefullyShutdownGroup)],
                gracefulShutdownSignals: [.sigterm, .sigint],
                logger: logger))
        try await group.run()
        if let simulation, simulation.pacing == .whenHandled {
            // The soak reads this line (Scripts/soak.sh).
            FileHandle.standardOutput.write(Data(("simulation " + (await simulation.report.json()) + "\n").utf8))
        }
    }
}

extension SimulationPacing: ExpressibleByArgument {
    public init?(argument: String) {
        switch argument {
        case "timed": self = .timed
        case "handled": self = .whenHandled
        default: return nil
        }
    }
}

enum LogFormat: String, ExpressibleByArgument {
    case plain
    case json
}
