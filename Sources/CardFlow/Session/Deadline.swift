/// Runs `operation`, cancelling it when `duration` elapses on `clock`. Cancellation of the
/// operation is real: an APDU in flight is aborted by the driver.
func withDeadline<T: Sendable>(
    _ duration: Duration?, clock: any ElapsedClock, what: @autoclosure () -> String,
    _ operation: @escaping @Sendable () async throws -> T
) async throws -> T {
    guard let duration else { return try await operation() }
    let deadline = clock.now() + duration
    let description = what()
    return try await withThrowingTaskGroup(of: T?.self) { group in
        group.addTask { try await operation() }
        group.addTask {
            try await clock.suspend(until: deadline)
            return nil
        }
        defer { group.cancelAll() }
        guard let first = try await group.next() else { throw CancellationError() }
        guard let value = first else { throw SessionError.timedOut(what: description, after: duration) }
        return value
    }
}
