import CardFlowFleet
import CardFlowFleetPostgres
import CardFlowPostgresTestSupport
import Foundation
import Testing

/// A card that was written, whose completion waited (the host could not reach the store), wins
/// over a re-claim that has not begun writing its own card; never two cards for one record.
@Suite(
    "PostgresFleet earlier claim", .serialized,
    .enabled(if: FleetTestEnvironment.hasPostgres, FleetTestEnvironment.skipReason))
struct PostgresFleetEarlierClaimTests {
    /// The lease of R1 ran out (as after an outage longer than the lease), without waiting for it.
    static func expireLease(_ server: ThrowawayPostgres) async throws {
        try await server.psql("UPDATE fleet_records SET lease_until = now() - interval '1 second' WHERE ref = 'R1'")
    }

    @Test func aWrittenCardsLateCompletionWinsOverAnUntouchedReclaim() async throws {
        try await withFleetStore { store, server in
            _ = try await store.importRecords(batch: "b", records(2))
            let first = try claimed(
                try await store.claim(batch: "b", host: "a", reader: "ra", uid: uid(1), lease: .seconds(60)))
            try await Self.expireLease(server)
            let second = try claimed(
                try await store.claim(batch: "b", host: "b", reader: "rb", uid: uid(2), lease: .seconds(60)))
            #expect(second.recordID == first.recordID)
            #expect(second.replacesEarlierClaim)
            #expect(try await store.spoiledCards(batch: "b").map(\.uid) == [uid(1).hexText])
            // Host a's completion arrives before host b's first step.
            let result = Array(#"{"written": true}"#.utf8)
            #expect(
                try await store.complete(
                    recordID: first.recordID, token: first.token, state: .done, result: result, error: nil)
                    == .applied)
            #expect(
                try await store.complete(
                    recordID: first.recordID, token: first.token, state: .done, result: result, error: nil)
                    == .alreadyApplied)
            let row = try #require(try await store.records(batch: "b", state: .done).first)
            #expect(row.id == first.recordID)
            #expect(row.uid == uid(1).hexText)
            #expect(row.host == "a")
            #expect(row.result?.contains("written") == true)
            // Host a's card is no longer spoiled; host b stops before touching its card.
            #expect(try await store.spoiledCards(batch: "b").isEmpty)
            #expect(try await !store.beginWriting(second, lease: .seconds(60)))
            #expect(
                try await store.complete(
                    recordID: second.recordID, token: second.token, state: .done, result: nil, error: nil) == .fenced)
            // Host b's card is blank and unbound: it gets the next record.
            let next = try claimed(
                try await store.claim(batch: "b", host: "b", reader: "rb", uid: uid(2), lease: .seconds(60)))
            #expect(next.recordID != first.recordID)
        }
    }

    @Test func aReclaimThatBeganWritingKeepsTheRecord() async throws {
        try await withFleetStore { store, server in
            _ = try await store.importRecords(batch: "b", records(1))
            let first = try claimed(
                try await store.claim(batch: "b", host: "a", reader: "ra", uid: uid(1), lease: .seconds(60)))
            try await Self.expireLease(server)
            let second = try claimed(
                try await store.claim(batch: "b", host: "b", reader: "rb", uid: uid(2), lease: .seconds(60)))
            #expect(try await store.beginWriting(second, lease: .seconds(60)))
            // Host b writes its card now: host a's late completion is fenced and its card stays spoiled.
            #expect(
                try await store.complete(
                    recordID: first.recordID, token: first.token, state: .done, result: nil, error: nil) == .fenced)
            #expect(
                try await store.complete(
                    recordID: second.recordID, token: second.token, state: .done, result: nil, error: nil)
                    == .applied)
            let row = try #require(try await store.records(batch: "b").first)
            #expect(row.uid == uid(2).hexText)
            #expect(row.host == "b")
            #expect(try await store.spoiledCards(batch: "b").map(\.uid) == [uid(1).hexText])
        }
    }
}

extension Array where Element == UInt8 {
    /// Upper-case hex, as the store keeps UIDs.
    var hexText: String { map { String(format: "%02X", $0) }.joined() }
}
