import CardFlowDaemon
import Dispatch
import Foundation
import GRDB
import Synchronization
import Testing

/// The job log's group commit, over a database of its own whose writer queue a test can hold,
/// so that what queues up meanwhile is known.
@Suite("cardd job log group commit")
struct JobLogGroupCommitTests {
    /// A pool with one table, its commits counted, and a way to hold its writer queue.
    final class Fixture: Sendable {
        let pool: DatabasePool
        let counter = CommitCounter()
        var commits: Int { counter.commits }
        let group: JobLogGroupCommit

        init() throws {
            let path = FileManager.default.temporaryDirectory
                .appendingPathComponent("cardflow-group-\(UUID().uuidString).sqlite").path
            pool = try DatabasePool(path: path)
            try pool.write { db in try db.execute(sql: "CREATE TABLE t (v INTEGER NOT NULL UNIQUE)") }
            pool.add(transactionObserver: counter, extent: .databaseLifetime)
            group = JobLogGroupCommit(database: pool)
        }

        /// Blocks the writer queue until the returned semaphore is signalled.
        func holdWriter() async -> DispatchSemaphore {
            let release = DispatchSemaphore(value: 0)
            await withCheckedContinuation { (held: CheckedContinuation<Void, Never>) in
                pool.asyncWriteWithoutTransaction { _ in
                    held.resume()
                    release.wait()
                }
            }
            return release
        }

        /// Waits until `count` writes are queued (gate, 1 ms between looks, 10 s at most).
        func waitForQueued(_ count: Int) async throws {
            for _ in 0..<10_000 where group.queuedCount < count { try await Task.sleep(for: .milliseconds(1)) }
            try #require(group.queuedCount == count)
        }

        func insert(_ value: Int) async throws {
            try await group.write { db in try db.execute(sql: "INSERT INTO t (v) VALUES (?)", arguments: [value]) }
        }

        func values() throws -> [Int] {
            try pool.read { db in try Int.fetchAll(db, sql: "SELECT v FROM t ORDER BY v") }
        }
    }

    final class CommitCounter: TransactionObserver, Sendable {
        private let count = Atomic<Int>(0)
        var commits: Int { count.load(ordering: .relaxed) }
        func observes(eventsOfKind eventKind: DatabaseEventKind) -> Bool { true }
        func databaseDidChange(with event: DatabaseEvent) {}
        func databaseDidCommit(_ db: Database) { count.add(1, ordering: .relaxed) }
        func databaseDidRollback(_ db: Database) {}
    }

    @Test func writesQueuedWhileATransactionRunsShareTheNextOne() async throws {
        let fixture = try Fixture()
        let release = await fixture.holdWriter()
        let before = fixture.commits
        let writes = Task {
            try await withThrowingTaskGroup(of: Void.self) { tasks in
                for value in 0..<100 {
                    tasks.addTask { try await fixture.insert(value) }
                }
                try await tasks.waitForAll()
            }
        }
        try await fixture.waitForQueued(100)
        release.signal()
        try await writes.value
        #expect(fixture.commits - before == 1)
        #expect(try fixture.values() == Array(0..<100))
    }

    @Test func aFailingWriteFailsAloneAndTheOthersCommit() async throws {
        let fixture = try Fixture()
        let release = await fixture.holdWriter()
        let first = Task { try await fixture.insert(1) }
        try await fixture.waitForQueued(1)
        // The same value again: the UNIQUE constraint refuses it, after an insert of its own.
        let duplicate = Task {
            try await fixture.group.write { db in
                try db.execute(sql: "INSERT INTO t (v) VALUES (2)")
                try db.execute(sql: "INSERT INTO t (v) VALUES (1)")
            }
        }
        try await fixture.waitForQueued(2)
        let third = Task {
            try await fixture.group.write { db in
                try db.execute(sql: "INSERT INTO t (v) VALUES (3)")
                return 3
            }
        }
        try await fixture.waitForQueued(3)
        release.signal()
        try await first.value
        await #expect(throws: DatabaseError.self) { try await duplicate.value }
        #expect(try await third.value == 3)
        // The failed write's own first insert (2) was rolled back with it.
        #expect(try fixture.values() == [1, 3])
    }

    /// SQLite ending the transaction itself (as it may on a full disk) takes every write of the
    /// group with it: none of them may be reported written.
    @Test func aTransactionSQLiteRolledBackFailsEveryWriteOfItsGroup() async throws {
        let fixture = try Fixture()
        let release = await fixture.holdWriter()
        let first = Task { try await fixture.insert(1) }
        try await fixture.waitForQueued(1)
        let rollback = Task { try await fixture.group.write { db in try db.execute(sql: "ROLLBACK") } }
        try await fixture.waitForQueued(2)
        let third = Task { try await fixture.insert(3) }
        try await fixture.waitForQueued(3)
        release.signal()
        await #expect(throws: (any Error).self) { try await first.value }
        await #expect(throws: (any Error).self) { try await rollback.value }
        await #expect(throws: (any Error).self) { try await third.value }
        #expect(try fixture.values() == [])
        // The queue goes on with the next group.
        try await fixture.insert(4)
        #expect(try fixture.values() == [4])
    }

    /// A full database (SQLite's page limit standing in for a full disk): the write fails with
    /// SQLite's error, and writes succeed again once there is room.
    @Test func aFullDatabaseFailsTheWriteAndRecovers() async throws {
        let fixture = try Fixture()
        let pages = try await fixture.pool.write { db in try Int.fetchOne(db, sql: "PRAGMA page_count") ?? 0 }
        try await fixture.pool.writeWithoutTransaction { db in
            try db.execute(sql: "PRAGMA max_page_count = \(pages)")
        }
        let blob = String(repeating: "x", count: 20_000)
        await #expect(throws: DatabaseError.self) {
            try await fixture.group.write { db in
                try db.execute(sql: "CREATE TABLE big (b TEXT)")
                try db.execute(sql: "INSERT INTO big (b) VALUES (?)", arguments: [blob])
            }
        }
        try await fixture.pool.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA max_page_count = 1000000") }
        try await fixture.insert(5)
        #expect(try fixture.values() == [5])
    }
}
