import CardFlow
import CardFlowDaemon
import CardFlowDaemonFlows
import CardFlowDaemonSimulation
import Foundation
import GRDB
import Logging
import Testing

/// The soak in short (Scripts/soak.sh runs the long one): cardd with misbehaving simulated
/// readers and cards, paced by the daemon, for 400 sessions. Every arrival is handled, every
/// job ends in a terminal state in the job log, and the log is intact.
@Suite("cardd soak (short)", .serialized)
struct SoakSmokeTests {
    @Test(.timeLimit(.minutes(3)))
    func fourHundredMisbehavingSessionsEndInRecordedStates() async throws {
        let sessions = 400
        let folder = NSTemporaryDirectory() + "cardd-soak-\(UUID().uuidString.prefix(8))"
        defer { try? FileManager.default.removeItem(atPath: folder) }
        var logger = Logger(label: "cardd.soak")
        logger.logLevel = .critical
        var configuration = DaemonConfiguration.simulationDefault
        configuration.apduTimeoutMilliseconds = 300
        configuration.stepTimeoutMilliseconds = 5_000
        configuration.cardReturnMilliseconds = 200
        let schedule = try SimulationSchedule(
            readerCount: 4, arrivals: sessions, pacing: .whenHandled,
            misbehaviour: SimulationMisbehaviour(rate: 0.4, seed: 16), // every fault kind
            handlingBound: .seconds(20),
            logger: logger)
        let daemon = try CardDaemon(
            configuration: ConfigurationStore(configuration, path: nil, flowKinds: .standard),
            socketPath: folder + "/cardd.sock",
            jobLogPath: folder + "/jobs.sqlite", keys: try await DaemonConfiguration.simulationKeys(),
            simulation: schedule, logger: logger)
        let started = ContinuousClock.now
        try await daemon.run()
        let elapsed = ContinuousClock.now - started

        let report = schedule.report
        let summary = await report.json()
        #expect(await report.arrivals == sessions)
        // Rarely (about 1 in 3,000 arrivals in the long soak, issue 16) cardd does not see a card
        // come or go after a fault; more than 1 in 50 is a regression.
        let (handled, unhandled) = (await report.handled, await report.unhandled)
        #expect(unhandled * 50 <= sessions, "\(summary)")
        #expect(handled + unhandled > sessions * 9 / 10, "\(summary)")
        #expect(await report.faults.values.reduce(0, +) > sessions / 4, "\(summary)")
        #expect(await report.replugs > 0)

        let queue = try DatabaseQueue(path: folder + "/jobs.sqlite")
        let (states, integrity, unfinished) = try await queue.read { db in
            (
                try [String: Int](
                    uniqueKeysWithValues: Row.fetchAll(db, sql: "SELECT state, count(*) AS n FROM job GROUP BY state")
                        .map {
                            (try $0.decode(String.self, forColumn: "state"), try $0.decode(Int.self, forColumn: "n"))
                        }),
                try String.fetchOne(db, sql: "PRAGMA integrity_check"),
                try Int.fetchOne(db, sql: "SELECT count(*) FROM job WHERE finished_at IS NULL") ?? -1
            )
        }
        #expect(integrity == "ok")
        #expect(unfinished == 0)
        #expect(Set(states.keys).isSubset(of: ["succeeded", "failed", "cancelled"]), "\(states)")
        #expect((states["succeeded"] ?? 0) > sessions / 2, "\(states)")
        #expect((states["failed"] ?? 0) > 0, "\(states)")
        print("soak (short): \(sessions) sessions in \(elapsed), jobs \(states), \(summary)")
    }
}
