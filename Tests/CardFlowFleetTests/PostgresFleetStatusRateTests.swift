import CardFlowFleet
import CardFlowFleetPostgres
import CardFlowPostgresTestSupport
import Testing

/// `cardctl fleet status` shows each host's recent rate: the records it finished within the
/// window, per minute.
@Suite(
    "PostgresFleet status rates", .serialized,
    .enabled(if: FleetTestEnvironment.hasPostgres, FleetTestEnvironment.skipReason))
struct PostgresFleetStatusRateTests {
    @Test func eachHostsRateCountsWhatItFinishedWithinTheWindow() async throws {
        try await withFleetStore { store, server in
            _ = try await store.importRecords(batch: "b", records(10))
            // h1 finished 6 records within the last minute (one failed) and 2 an hour ago; h2
            // finished 1 and holds 1.
            try await server.psql(
                """
                UPDATE fleet_records SET claimed_by = 'h1', uid = 'U' || id, attempts = 1, state = 'done',
                       completed_at = now() - interval '10 seconds' WHERE id <= 5;
                UPDATE fleet_records SET claimed_by = 'h1', attempts = 1, state = 'failed',
                       completed_at = now() - interval '20 seconds' WHERE id = 6;
                UPDATE fleet_records SET claimed_by = 'h1', uid = 'U' || id, attempts = 1, state = 'done',
                       completed_at = now() - interval '1 hour' WHERE id IN (7, 8);
                UPDATE fleet_records SET claimed_by = 'h2', uid = 'U' || id, attempts = 1, state = 'done',
                       completed_at = now() WHERE id = 9;
                UPDATE fleet_records SET claimed_by = 'h2', uid = 'U' || id, attempts = 1, state = 'claimed',
                       claim_token = gen_random_uuid(), lease_until = now() + interval '1 minute' WHERE id = 10;
                """)
            let status = try #require(try await store.status(batch: "b", rateWindow: .seconds(30)).first)
            #expect(status.rateWindowSeconds == 30)
            let hosts = Dictionary(uniqueKeysWithValues: status.hosts.map { ($0.host, $0) })
            #expect(hosts["h1"]?.done == 7)
            #expect(hosts["h1"]?.recentlyFinished == 6)
            #expect(hosts["h1"]?.recordsPerMinute == 12)
            #expect(hosts["h2"]?.recentlyFinished == 1)
            #expect(hosts["h2"]?.recordsPerMinute == 2)
            #expect(hosts["h2"]?.claimed == 1)
        }
    }
}
