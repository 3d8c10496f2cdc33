/// A flow running on a reader: its progress events and its result.
///
/// `progress` ends after ``FlowEvent/completed`` or ``FlowEvent/failed(_:)``. Awaiting `value`
/// from a task that gets cancelled cancels the flow; so does ``cancel()``.
///
/// `progress` buffers at most ``progressBufferSize`` events for a consumer that is slow or
/// absent, keeping the newest: a step (or a relay service) reporting progress without end costs
/// bounded memory, the final ``FlowEvent/completed`` or ``FlowEvent/failed(_:)`` is always the
/// last event delivered, and ``value`` holds the result whatever was dropped.
public struct FlowRun<Output: Sendable>: Sendable {
    /// Events kept for a consumer that has not read them yet.
    public static var progressBufferSize: Int { 1024 }

    /// The flow's events, from connection to the end.
    public let progress: AsyncStream<FlowEvent>
    private let task: Task<Output, any Error>

    init(flow: Flow<Output>, reader: Reader, policy: SessionPolicy) {
        let (stream, continuation) = AsyncStream<FlowEvent>.makeStream(
            bufferingPolicy: .bufferingNewest(Self.progressBufferSize))
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
