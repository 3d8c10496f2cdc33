import CardFlowDaemon
import Testing

/// Runs `daemon` while `body` runs, then cancels it and waits until it has stopped (within
/// `stopBound`). Without the wait a test's daemon, still stopping, kept watching `usb` (any
/// reader) and claimed the reader of the test that ran next ("interface is busy", 2026-12-02).
func whileRunning<Result: Sendable>(
    _ daemon: CardDaemon, stopBound: Duration = .seconds(30), _ body: () async throws -> Result
) async throws -> Result {
    let running = Task { try await daemon.run() }
    let outcome: Swift.Result<Result, any Error>
    do {
        outcome = .success(try await body())
    } catch {
        outcome = .failure(error)
    }
    running.cancel()
    let stopped = await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
        let first = FirstAnswer(continuation)
        Task {
            _ = await running.result
            await first.answer(true)
        }
        Task {
            try? await Task.sleep(for: stopBound)
            await first.answer(false)
        }
    }
    #expect(stopped, "cardd stops within \(stopBound) of its cancellation")
    return try outcome.get()
}

/// Resumes a continuation with the first answer it is given; later ones are dropped.
private actor FirstAnswer {
    private var continuation: CheckedContinuation<Bool, Never>?

    init(_ continuation: CheckedContinuation<Bool, Never>) {
        self.continuation = continuation
    }

    func answer(_ value: Bool) {
        continuation?.resume(returning: value)
        continuation = nil
    }
}
