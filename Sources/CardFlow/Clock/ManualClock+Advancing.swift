import Synchronization

extension ManualClock {
    /// Runs `operation` while moving the clock forward by `step` (with a millisecond of real
    /// time between steps, so that work on other tasks can reach its next wait), until the
    /// operation ends or `giveUpAt` passes on the clock; then the operation is cancelled and the
    /// result is nil.
    ///
    /// Unlike waiting for a sleeper and advancing once, this does not depend on which wait
    /// comes first: a session's wait for its card, then an APDU's timer, each wakes in turn.
    ///
    /// ```swift
    /// let outcome = await clock.runAdvancing(by: .milliseconds(500), giveUpAt: .seconds(600)) {
    ///     try await reader.withSession(policy: policy) { try await $0.send(command) }
    /// }
    /// ```
    public nonisolated func runAdvancing<T: Sendable>(
        by step: Duration, giveUpAt: Duration, _ operation: @escaping @Sendable () async throws -> T
    ) async -> Result<T, any Error>? {
        let outcome = Mutex<Result<T, any Error>?>(nil)
        let task = Task {
            let result: Result<T, any Error>
            do { result = .success(try await operation()) } catch { result = .failure(error) }
            outcome.withLock { $0 = result }
        }
        while outcome.withLock({ $0 == nil }) && now() < giveUpAt {
            try? await Task.sleep(for: .milliseconds(1))
            await advance(by: step)
        }
        guard let result = outcome.withLock({ $0 }) else {
            task.cancel()
            return nil
        }
        return result
    }
}
