extension FIFOAdmission {
    /// Waits for the turn of `ticket` (from ``tryEnter()``), on the actor that owns the
    /// admission: `enqueue` puts the continuation in the queue (``enqueue(_:_:)``) and `cancel`
    /// withdraws the ticket when the waiting task is cancelled (``cancel(_:)``). A mutating async
    /// method cannot do this itself: the admission lives in an actor's stored property.
    ///
    /// ```swift
    /// guard let ticket = admission.tryEnter() else { return }
    /// try await FIFOAdmission.wait(
    ///     enqueue: { admission.enqueue(ticket, $0) }, cancel: { await self.cancelWaiter(ticket) })
    /// ```
    ///
    /// - Throws: `CancellationError` when the task is cancelled before its turn.
    public static func wait(
        isolation: isolated (any Actor)? = #isolation,
        enqueue: (CheckedContinuation<Void, any Error>) -> Void,
        cancel: @escaping @Sendable () async -> Void
    ) async throws {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation(isolation: isolation) {
                (continuation: CheckedContinuation<Void, any Error>) in
                if Task.isCancelled {
                    continuation.resume(throwing: CancellationError())
                } else {
                    enqueue(continuation)
                }
            }
        } onCancel: {
            Task { await cancel() }
        }
    }
}
