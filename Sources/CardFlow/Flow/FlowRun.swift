/// A flow running on a reader: its progress events and its result.
///
/// `progress` ends after ``FlowEvent/completed`` or ``FlowEvent/failed(_:)``. Awaiting `value`
/// from a task that gets cancelled cancels the flow; so does ``cancel()``.
public struct FlowRun<Output: Sendable>: Sendable {
    /// The flow's events, from connection to the end.
    public let progress: AsyncStream<FlowEvent>
    private let task: Task<Output, any Error>

    init(flow: Flow<Output>, reader: Reader, policy: SessionPolicy) {
        let (stream, continuation) = AsyncStream<FlowEvent>.makeStream()
        progress = stream
        let sink = FlowEventSink(continuation: continuation)
        task = Task {
            defer { continuation.finish() }
            do {
                let value = try await FlowRunner(flow: flow, reader: reader, policy: policy, events: sink).run()
                sink.emit(.completed)
                return value
            } catch {
                sink.emit(.failed(String(describing: error)))
                throw error
            }
        }
    }

    /// The flow's result; throws its error (``FlowError`` for a failed step, ``SessionError``,
    /// or `CancellationError`).
    public var value: Output {
        get async throws { try await task.valueCancelledWithCaller }
    }

    /// Stops the flow: the APDU in flight is aborted and the session closed.
    public func cancel() {
        task.cancel()
    }
}
