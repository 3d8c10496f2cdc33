import CardFlowFleet
import CardFlowFleetPostgres
import CardFlowPostgresTestSupport
import Foundation
import Logging
import Testing

/// A claim and a completion cost one round trip each (issue 36, item 6): the server's own
/// statement log (`log_statement = all`) counts what the store sent for each call, BEGIN and
/// COMMIT included.
@Suite(
    "PostgresFleet round trips", .serialized,
    .enabled(if: FleetTestEnvironment.hasPostgres, FleetTestEnvironment.skipReason))
struct PostgresFleetRoundTripTests {
    /// The statements the server logged since `offset` bytes into its log.
    static func statements(_ server: ThrowawayPostgres, since offset: Int) throws -> [String] {
        let log = try String(contentsOfFile: server.folder + "/server.log", encoding: .utf8)
        let tail = String(decoding: Array(log.utf8.dropFirst(offset)), as: UTF8.self)
        // Extended protocol (postgres-nio) logs "execute <unnamed>: …", simple protocol "statement: …".
        // The pool's keep-alive (SELECT 1, every 15 s) is not the store's doing.
        return tail.components(separatedBy: "\n").filter {
            ($0.contains("LOG:  execute ") || $0.contains("LOG:  statement: ")) && !$0.hasSuffix(": SELECT 1;")
        }
    }

    static func logSize(_ server: ThrowawayPostgres) -> Int {
        (try? FileManager.default.attributesOfItem(atPath: server.folder + "/server.log")[.size] as? Int) ?? 0
    }

    /// Runs `call` and returns its answer with the statements the server ran for it.
    static func sent<Answer>(
        _ server: ThrowawayPostgres, _ call: () async throws -> Answer
    ) async throws -> (Answer, [String]) {
        let start = logSize(server)
        let answer = try await call()
        return (answer, try statements(server, since: start))
    }

    @Test func aClaimAndACompletionAreOneStatementEach() async throws {
        try await withFleetStore { _, server in
            _ = try await server.psql("SELECT 1")
            try await server.psql("ALTER SYSTEM SET log_statement = 'all'")
            try await server.psql("SELECT pg_reload_conf()")
            var logger = Logger(label: "fleet.round-trips")
            logger.logLevel = .warning
            // A store of its own, connected after the setting took effect.
            let store = FleetStore(address: try FleetDatabaseAddress(server.url), logger: logger)
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { await store.run() }
                defer { group.cancelAll() }
                _ = try await store.importRecords(batch: "b", records(3))
                let (claim, claiming) = try await Self.sent(server) {
                    try await store.claim(batch: "b", host: "h", reader: "r", uid: uid(1), lease: .seconds(60))
                }
                #expect(claiming.count == 1, "\(claiming)")
                let held = try claimed(claim)
                let (bound, binding) = try await Self.sent(server) {
                    try await store.claim(batch: "b", host: "h", reader: "r", uid: uid(1), lease: .seconds(60))
                }
                #expect(bound == .cardAlreadyBound(recordID: held.recordID, reference: held.reference, state: .claimed))
                #expect(binding.count == 1, "\(binding)")
                let (applied, completing) = try await Self.sent(server) {
                    try await store.complete(
                        recordID: held.recordID, token: held.token, state: .done, result: Array(#"{"a":1}"#.utf8),
                        error: nil)
                }
                #expect(applied == .applied)
                #expect(completing.count == 1, "\(completing)")
                let (again, repeating) = try await Self.sent(server) {
                    try await store.complete(
                        recordID: held.recordID, token: held.token, state: .done, result: nil, error: nil)
                }
                #expect(again == .alreadyApplied)
                #expect(repeating.count == 1, "\(repeating)")
                let (fenced, fencing) = try await Self.sent(server) {
                    try await store.complete(
                        recordID: held.recordID, token: UUID(), state: .done, result: nil, error: nil)
                }
                #expect(fenced == .fenced)
                #expect(fencing.count == 1, "\(fencing)")
            }
        }
    }
}
