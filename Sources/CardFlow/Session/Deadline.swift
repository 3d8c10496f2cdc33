/// `operation`'s result, or nil when `deadline` passed on `clock` first; the operation is then
/// cancelled (and awaited: nothing of it outlives the call).
func racingTimer<T: Sendable>(
    _ deadline: Duration, clock: any ElapsedClock, _ operation: @escaping @Sendable () async throws -> T
) async throws -> T? {
    try await withThrowingTaskGroup(of: T?.self) { group in
        group.addTask { try await operation() }
        group.addTask {
            try await clock.suspend(until: deadline)
            return nil
        }
        defer { group.cancelAll() }
        guard let first = try await group.next() else { throw CancellationError() }
        return first
    }
}
