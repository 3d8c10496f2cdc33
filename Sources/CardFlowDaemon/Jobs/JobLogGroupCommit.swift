import GRDB
import Synchronization

/// Group commit for the job log: writes asked for while an earlier transaction runs share the
/// next one.
///
/// With many readers each job's records (its start, card, events, end, the fleet's outbox entry)
/// were a transaction each, and every commit appends its own WAL frames. Here a write is queued;
/// the first write of a group schedules one transaction on GRDB's writer queue, and when that
/// transaction starts it takes every write queued by then. Each write runs in its own savepoint,
/// so one that fails is rolled back alone and only its caller gets the error; callers are
/// answered only after the shared commit, so "written" still means committed.
///
/// When SQLite rolls the whole transaction back on its own (a full disk, an I/O error), every
/// write of the group fails with that error, including those that ran before it: none of them
/// is reported written.
package final class JobLogGroupCommit: Sendable {
    /// One queued write: runs it in the group's transaction and says how to answer its caller.
    private struct Item: Sendable {
        /// Runs the write in its savepoint; returns the answer to give once the group committed,
        /// and the write's error when it failed.
        let run: @Sendable (Database) -> (answer: @Sendable () -> Void, error: (any Error)?)
        /// Answers the caller with the group's failure.
        let fail: @Sendable (any Error) -> Void
    }

    private struct State {
        var queued: [Item] = []
        /// A transaction is scheduled that has not taken the queue yet.
        var scheduled = false
        /// The writes of the transaction that runs now (the writer queue runs one at a time).
        var running: [Item] = []
    }

    private let database: DatabasePool
    // A mutex, not an actor: the queue is emptied synchronously on GRDB's writer dispatch queue.
    private let state = Mutex(State())

    /// Group commit over `database`'s writer.
    package init(database: DatabasePool) {
        self.database = database
    }

    /// Runs `updates` in the next group transaction and returns its value once that committed.
    /// Does not look at the calling task's cancellation: a job that is being cancelled still gets
    /// its last records.
    package func write<T: Sendable>(_ updates: @escaping @Sendable (Database) throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
            let item = Item(
                run: { db in
                    var outcome: Result<T, any Error> = .failure(JobLogGroupCommitError.transactionRolledBack)
                    do {
                        try db.inSavepoint {
                            outcome = .success(try updates(db))
                            return .commit
                        }
                    } catch {
                        outcome = .failure(error)
                    }
                    let result = outcome
                    let error: (any Error)? = if case .failure(let failure) = result { failure } else { nil }
                    return ({ continuation.resume(with: result) }, error)
                },
                fail: { continuation.resume(throwing: $0) })
            let schedule = state.withLock { state in
                state.queued.append(item)
                guard !state.scheduled else { return false }
                state.scheduled = true
                return true
            }
            if schedule { scheduleGroup() }
        }
    }

    /// Writes queued for a transaction that has not started yet.
    package var queuedCount: Int { state.withLock { $0.queued.count } }

    private func scheduleGroup() {
        database.asyncWrite { [self] db -> [@Sendable () -> Void] in
            let items = state.withLock { state in
                let items = state.queued
                state.queued = []
                state.scheduled = false
                state.running = items
                return items
            }
            var answers: [@Sendable () -> Void] = []
            answers.reserveCapacity(items.count)
            for item in items {
                let (answer, error) = item.run(db)
                // SQLite ended the transaction itself: what ran before is gone as well.
                guard db.isInsideTransaction else { throw error ?? JobLogGroupCommitError.transactionRolledBack }
                answers.append(answer)
            }
            return answers
        } completion: { [self] _, result in
            let items = state.withLock { state in
                defer { state.running = [] }
                return state.running
            }
            switch result {
            case .success(let answers):
                for answer in answers { answer() }
            case .failure(let error):
                for item in items { item.fail(error) }
            }
        }
    }
}

/// Why a group of job log writes failed as a whole.
package enum JobLogGroupCommitError: Error, CustomStringConvertible {
    /// SQLite rolled the group's transaction back by itself (a full disk, an I/O error).
    case transactionRolledBack

    package var description: String {
        switch self {
        case .transactionRolledBack: "the job log's transaction was rolled back by SQLite (full disk or I/O error)"
        }
    }
}
