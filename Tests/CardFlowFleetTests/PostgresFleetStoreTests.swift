import CardFlowFleet
import CardFlowFleetPostgres
import CardFlowPostgresTestSupport
import Foundation
import Logging
import Testing

/// Runs `body` with a migrated store on a throwaway server (`start` makes it), stopping both
/// afterwards.
func withFleetStore(
    leaseCheck: Bool = true, operationTimeout: Duration = .seconds(10),
    start: @Sendable () async throws -> ThrowawayPostgres = { try await ThrowawayPostgres.start() },
    _ body: @Sendable (FleetStore, ThrowawayPostgres) async throws -> Void
) async throws {
    let server = try await start()
    do {
        var logger = Logger(label: "fleet.test")
        logger.logLevel = .warning
        let store = FleetStore(
            address: try FleetDatabaseAddress(server.url), operationTimeout: operationTimeout, logger: logger)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await store.run() }
            defer { group.cancelAll() }
            try await store.migrate()
            try await body(store, server)
        }
    } catch {
        await server.stop()
        throw error
    }
    await server.stop()
}

func records(_ count: Int, prefix: String = "R") -> [FleetRecordInput] {
    (1...count).map {
        FleetRecordInput(reference: "\(prefix)\($0)", parameters: Array(#"{"text": "card \#($0)"}"#.utf8))
    }
}

func uid(_ index: Int) -> [UInt8] {
    [0x04, 0xA0, 0x00, UInt8((index >> 16) & 0xFF), UInt8((index >> 8) & 0xFF), UInt8(index & 0xFF), 0x80]
}

func claimed(_ result: FleetClaimResult, sourceLocation: SourceLocation = #_sourceLocation) throws -> FleetClaim {
    guard case .claimed(let claim) = result else {
        Issue.record("expected a claim, got \(result)", sourceLocation: sourceLocation)
        throw ThrowawayPostgresError(description: "no claim")
    }
    return claim
}

@Suite(
    "PostgresFleet store", .serialized,
    .enabled(if: FleetTestEnvironment.hasPostgres, FleetTestEnvironment.skipReason))
struct PostgresFleetStoreTests {
    @Test func concurrentClaimersEachGetADifferentRecordExactlyOnce() async throws {
        try await withFleetStore { store, _ in
            let summary = try await store.importRecords(batch: "b", records(40))
            #expect(summary.imported == 40)
            // 8 hosts × 6 cards race for 40 records: every record is claimed once, 8 cards get nothing.
            let results = try await withThrowingTaskGroup(of: [FleetClaimResult].self) { group in
                for host in 0..<8 {
                    group.addTask {
                        var results: [FleetClaimResult] = []
                        for card in 0..<6 {
                            results.append(
                                try await store.claim(
                                    batch: "b", host: "h\(host)", reader: "sim:0", uid: uid(host * 100 + card),
                                    lease: .seconds(60)))
                        }
                        return results
                    }
                }
                return try await group.reduce(into: []) { $0 += $1 }
            }
            let claims = results.compactMap { result -> FleetClaim? in
                if case .claimed(let claim) = result { return claim }
                return nil
            }
            #expect(claims.count == 40)
            #expect(Set(claims.map(\.recordID)).count == 40)
            #expect(Set(claims.map(\.token)).count == 40)
            #expect(results.filter { $0 == .nothingPending }.count == 8)
            let status = try #require(try await store.status(batch: "b").first)
            #expect(status.claimed == 40)
            #expect(status.hosts.map(\.claimed).reduce(0, +) == 40)
        }
    }

    @Test func completionIsFencedByTokenAndIdempotent() async throws {
        try await withFleetStore { store, _ in
            _ = try await store.importRecords(batch: "b", records(1))
            let claim = try claimed(
                try await store.claim(batch: "b", host: "h1", reader: "r", uid: uid(1), lease: .seconds(60)))
            #expect(claim.reference == "R1")
            #expect(claim.attempt == 1)
            let forged = UUID()
            #expect(
                try await store.complete(recordID: claim.recordID, token: forged, state: .done, result: nil, error: nil)
                    == .fenced)
            let result = Array(#"{"uid": "04A0"}"#.utf8)
            #expect(
                try await store.complete(
                    recordID: claim.recordID, token: claim.token, state: .done, result: result, error: nil) == .applied)
            // The outbox retries after a lost answer: same token, same state.
            #expect(
                try await store.complete(
                    recordID: claim.recordID, token: claim.token, state: .done, result: result, error: nil)
                    == .alreadyApplied)
            // A different ending for the same claim is not applied over the first.
            #expect(
                try await store.complete(
                    recordID: claim.recordID, token: claim.token, state: .failed, result: nil, error: "late")
                    == .fenced)
            let rows = try await store.records(batch: "b")
            #expect(rows.map(\.state) == [.done])
            #expect(rows.first?.uid == "04A0000000" + "0180")
            #expect(rows.first?.result?.contains("04A0") == true)
        }
    }

    /// Several completions in one call answer as the same completions one by one would, in their
    /// order; a call with one the server cannot take (a result that is not JSON) records none.
    @Test func completionsTogetherAnswerAsOneByOneAndAllOrNothing() async throws {
        try await withFleetStore { store, _ in
            _ = try await store.importRecords(batch: "b", records(4))
            var claims: [FleetClaim] = []
            for index in 0..<4 {
                claims.append(
                    try claimed(
                        try await store.claim(batch: "b", host: "h", reader: "r", uid: uid(index), lease: .seconds(60)))
                )
            }
            let done = Array(#"{"uid": "04A1"}"#.utf8)
            #expect(
                try await store.complete(
                    recordID: claims[0].recordID, token: claims[0].token, state: .done, result: done, error: nil)
                    == .applied)
            // A result the server cannot read as JSON fails the whole call: claims[1] stays claimed.
            await #expect(throws: FleetStoreError.self) {
                try await store.complete([
                    FleetCompletion(
                        recordID: claims[1].recordID, token: claims[1].token, state: .done, result: done, error: nil),
                    FleetCompletion(
                        recordID: claims[2].recordID, token: claims[2].token, state: .done,
                        result: Array("not json".utf8), error: nil),
                ])
            }
            #expect(try await store.records(batch: "b", state: .claimed).count == 3)
            let outcomes = try await store.complete([
                FleetCompletion(
                    recordID: claims[0].recordID, token: claims[0].token, state: .done, result: done, error: nil),
                FleetCompletion(recordID: claims[1].recordID, token: UUID(), state: .done, result: done, error: nil),
                FleetCompletion(
                    recordID: claims[2].recordID, token: claims[2].token, state: .failed, result: nil, error: "mute"),
                FleetCompletion(
                    recordID: claims[3].recordID, token: claims[3].token, state: .done, result: done, error: nil),
            ])
            #expect(outcomes == [.alreadyApplied, .fenced, .applied, .applied])
            let rows = try await store.records(batch: "b")
            #expect(rows.map(\.state) == [.done, .claimed, .failed, .done])
            #expect(rows[2].error == "mute")
            #expect(rows[3].result?.contains("04A1") == true)
            #expect(try await store.complete([]) == [])
        }
    }

    @Test func anExpiredLeaseIsClaimedAgainAndTheDeadHostsCardIsSpoiled() async throws {
        try await withFleetStore { store, _ in
            _ = try await store.importRecords(batch: "b", records(1))
            let dead = try claimed(
                try await store.claim(batch: "b", host: "dead", reader: "r0", uid: uid(1), lease: .seconds(1)))
            // Still leased: the other host gets nothing.
            #expect(
                try await store.claim(batch: "b", host: "live", reader: "r1", uid: uid(2), lease: .seconds(60))
                    == .nothingPending)
            #expect(try await store.extendLease(dead, by: .seconds(1)))
            try await Task.sleep(for: .milliseconds(1_500))
            #expect(try await store.status(batch: "b").first?.expired == 1)
            let live = try claimed(
                try await store.claim(batch: "b", host: "live", reader: "r1", uid: uid(2), lease: .seconds(60)))
            #expect(live.recordID == dead.recordID)
            #expect(live.attempt == 2)
            #expect(live.token != dead.token)
            #expect(live.replacesEarlierClaim)
            #expect(!dead.replacesEarlierClaim)
            // The live host writes its card: from now on the dead host cannot take the record back.
            #expect(try await store.beginWriting(live, lease: .seconds(60)))
            // The dead host's renewal and late completion match nothing.
            #expect(try await !store.extendLease(dead, by: .seconds(60)))
            #expect(
                try await store.complete(
                    recordID: dead.recordID, token: dead.token, state: .done, result: nil, error: nil)
                    == .fenced)
            #expect(
                try await store.complete(
                    recordID: live.recordID, token: live.token, state: .done, result: nil, error: nil)
                    == .applied)
            let spoiled = try await store.spoiledCards(batch: "b")
            #expect(spoiled.map(\.uid) == ["04A00000000180"])
            #expect(spoiled.first?.host == "dead")
            #expect(spoiled.first?.recordID == dead.recordID)
            // The half-written card is refused if it comes back.
            #expect(
                try await store.claim(batch: "b", host: "live", reader: "r1", uid: uid(1), lease: .seconds(60))
                    == .cardSpoiled(recordID: dead.recordID))
        }
    }

    @Test func oneCardOneRecord() async throws {
        try await withFleetStore { store, server in
            _ = try await store.importRecords(batch: "b", records(3))
            let first = try claimed(
                try await store.claim(batch: "b", host: "h1", reader: "r", uid: uid(7), lease: .seconds(60)))
            // The same card on another reader or host, while claimed and after done.
            #expect(
                try await store.claim(batch: "b", host: "h2", reader: "r", uid: uid(7), lease: .seconds(60))
                    == .cardAlreadyBound(recordID: first.recordID, reference: "R1", state: .claimed))
            _ = try await store.complete(
                recordID: first.recordID, token: first.token, state: .done, result: nil, error: nil)
            #expect(
                try await store.claim(batch: "b", host: "h2", reader: "r", uid: uid(7), lease: .seconds(60))
                    == .cardAlreadyBound(recordID: first.recordID, reference: "R1", state: .done))
            // The database itself refuses a second binding, whoever writes it (psql here).
            await #expect(throws: ThrowawayPostgresError.self) {
                try await server.psql(
                    "UPDATE fleet_records SET state = 'claimed', uid = '04A00000000780' WHERE ref = 'R2'")
            }
        }
    }

    @Test func attemptsRunOutIntoFailedWithTheCardSpoiled() async throws {
        try await withFleetStore { store, _ in
            _ = try await store.importRecords(batch: "b", records(1), maxAttempts: 1)
            _ = try claimed(try await store.claim(batch: "b", host: "h1", reader: "r", uid: uid(1), lease: .seconds(1)))
            try await Task.sleep(for: .milliseconds(1_500))
            #expect(
                try await store.claim(batch: "b", host: "h2", reader: "r", uid: uid(2), lease: .seconds(60))
                    == .nothingPending)
            let rows = try await store.records(batch: "b")
            #expect(rows.first?.state == .failed)
            #expect(rows.first?.error?.contains("attempt 1 of 1") == true)
            #expect(try await store.spoiledCards().count == 1)
        }
    }

    @Test func retryVoidReleaseAndImportTwice() async throws {
        try await withFleetStore { store, _ in
            #expect(try await store.importRecords(batch: "b", records(4)).imported == 4)
            let again = try await store.importRecords(batch: "b", records(5))
            #expect(again.imported == 1)
            #expect(again.skipped == 4)
            let a = try claimed(
                try await store.claim(batch: "b", host: "h", reader: "r", uid: uid(1), lease: .seconds(60)))
            _ = try await store.complete(
                recordID: a.recordID, token: a.token, state: .failed, result: nil, error: "lifted")
            let b = try claimed(
                try await store.claim(batch: "b", host: "h", reader: "r", uid: uid(2), lease: .seconds(60)))
            #expect(try await store.release(b))
            #expect(try await !store.release(b))
            #expect(try await store.records(batch: "b", state: .pending).count == 4)
            #expect(try await store.void(batch: "b", ids: [b.recordID]) == 1)
            #expect(try await store.retry(batch: "b") == 1)
            // The failed attempt's card may be half-written: spoiled.
            #expect(try await store.spoiledCards(batch: "b").map(\.uid) == ["04A00000000180"])
            let status = try #require(try await store.status(batch: "b").first)
            #expect(status.pending == 4)
            #expect(status.void == 1)
            #expect(status.failed == 0)
            #expect(status.spoiled == 1)
            #expect(status.total == 5)
            await #expect(throws: FleetStoreError.unknownBatch("nope")) { try await store.status(batch: "nope") }
            await #expect(throws: FleetStoreError.unknownBatch("nope")) {
                try await store.claim(batch: "nope", host: "h", reader: "r", uid: uid(9), lease: .seconds(60))
            }
        }
    }

    @Test func anImportWakesListeningHosts() async throws {
        try await withFleetStore { store, _ in
            let (listening, listeningSink) = AsyncStream<Void>.makeStream()
            let listener = Task {
                var wakeUps = 0
                for await _ in store.wakeUps(batch: "b", retryInterval: .milliseconds(200)) {
                    wakeUps += 1
                    // The first yield says the listener is up; the second is the import.
                    if wakeUps == 1 { listeningSink.yield() } else { return true }
                }
                return false
            }
            defer { listener.cancel() }
            for await _ in listening { break }
            _ = try await store.importRecords(batch: "other", records(1))
            _ = try await store.importRecords(batch: "b", records(1))
            let timeout = Task {
                try await Task.sleep(for: .seconds(30))
                listener.cancel()
            }
            defer { timeout.cancel() }
            #expect(await listener.value)
        }
    }

    @Test func hostsReportAndAreListed() async throws {
        try await withFleetStore { store, _ in
            let started = Date(timeIntervalSince1970: 1_800_000_000)
            var report = FleetHostReport(
                name: "bureau-1", version: "1.0", batch: "b", readers: ["usb:0", "usb:1"], runningJobs: 2, claims: 10,
                completions: 8, fencedWrites: 1, leaseLosses: 1, outboxDepth: 0, startedAt: started)
            try await store.report(report)
            report.completions = 9
            try await store.report(report)
            let hosts = try await store.hosts()
            #expect(hosts.count == 1)
            #expect(hosts.first?.completions == 9)
            #expect(hosts.first?.readers == ["usb:0", "usb:1"])
            #expect(hosts.first?.startedAt == started)
            #expect(hosts.first?.lastSeen != nil)
        }
    }

    @Test func hostTotalsAddUpOverRunsAndARepeatedHeartbeatCountsOnce() async throws {
        try await withFleetStore { store, _ in
            let first = UUID()
            var report = FleetHostReport(
                name: "desk-1", version: "1.0", batch: "b", readers: [], runningJobs: 0, claims: 5, completions: 4,
                fencedWrites: 1, leaseLosses: 0, outboxDepth: 0, startedAt: Date(timeIntervalSince1970: 1_800_000_000),
                session: first)
            try await store.report(report)
            // A heartbeat sent again (its answer was lost) and a late, older one change nothing.
            try await store.report(report)
            var stale = report
            stale.completions = 2
            try await store.report(stale)
            #expect(try await store.hosts().first?.completions == 4)
            // The host restarts under the same name: a new run counts from zero.
            report.session = UUID()
            report.startedAt = Date(timeIntervalSince1970: 1_800_000_600)
            (report.claims, report.completions, report.fencedWrites) = (2, 1, 0)
            try await store.report(report)
            var host = try #require(try await store.hosts().first)
            #expect(host.claims == 7)
            #expect(host.completions == 5)
            #expect(host.fencedWrites == 1)
            #expect(host.session == report.session)
            // The first run's last heartbeat, arriving after the restart, is dropped.
            stale.session = first
            stale.completions = 9
            try await store.report(stale)
            report.completions = 3
            try await store.report(report)
            host = try #require(try await store.hosts().first)
            #expect(host.completions == 7)
        }
    }

    @Test func aStoppedServerFailsFastWithATypedError() async throws {
        try await withFleetStore(operationTimeout: .seconds(3)) { store, server in
            _ = try await store.importRecords(batch: "b", records(1))
            try await server.pause()
            let started = ContinuousClock.now
            do {
                _ = try await store.claim(batch: "b", host: "h", reader: "r", uid: uid(1), lease: .seconds(60))
                Issue.record("a claim succeeded with the server stopped")
            } catch {
                #expect((error as? FleetStoreError)?.isTransient == true, "\(error)")
            }
            #expect(ContinuousClock.now - started < .seconds(30))
            try await server.resume()
            // The pool reconnects on its own once the server is back.
            let deadline = ContinuousClock.now + .seconds(60)
            var claim: FleetClaimResult?
            while claim == nil, ContinuousClock.now < deadline {
                claim = try? await store.claim(batch: "b", host: "h", reader: "r", uid: uid(1), lease: .seconds(60))
                if claim == nil { try await Task.sleep(for: .milliseconds(250)) }
            }
            _ = try claimed(try #require(claim))
        }
    }

    @Test func anUnreachableAddressIsTyped() async throws {
        let store = FleetStore(
            address: try FleetDatabaseAddress("/tmp/no-such-postgres-\(UUID().uuidString.prefix(6))"),
            operationTimeout: .seconds(3), logger: Logger(label: "t"))
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await store.run() }
            defer { group.cancelAll() }
            do {
                try await store.migrate()
                Issue.record("migrate succeeded without a server")
            } catch {
                #expect((error as? FleetStoreError)?.isTransient == true, "\(error)")
            }
        }
    }
}
