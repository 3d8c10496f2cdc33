extension Task where Failure == any Error {
    /// The task's value, cancelling the task when the caller awaiting it is cancelled: a run
    /// started in its own (unstructured) task would otherwise keep going after its caller gave up.
    /// ``FlowRun/value`` and the relay's result are built on it.
    public var valueCancelledWithCaller: Success {
        get async throws {
            try await withTaskCancellationHandler {
                try await value
            } onCancel: {
                cancel()
            }
        }
    }
}
