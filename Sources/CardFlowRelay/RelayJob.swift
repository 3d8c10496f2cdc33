import CardFlow
import Logging

/// A sync as a one-step ``/CardFlow/Flow`` for callers that run flows themselves (cardd runs it as a job,
/// with its progress going to the job log). ``RelayRun`` is built on it.
///
/// Run ``flow`` with ``policy(base:)``, then call ``finish(after:)`` exactly once, whatever the
/// outcome: it closes the connection and tells the service why (done, cancelled, or the error).
///
/// ```swift
/// let job = try client.job()
/// let run = reader.run(job.flow, policy: job.policy(base: policy))
/// do {
///     let result = try await run.value
///     await job.finish(after: nil)
/// } catch {
///     await job.finish(after: error)
/// }
/// ```
public struct RelayJob: Sendable {
    /// The sync: gate, then the service's APDUs; its value is the completed sync.
    public let flow: Flow<RelayResult>
    /// Relay-specific events (admitted, card lost and reset told to the service); the flow's own
    /// progress carries waiting, wrong card and the service's fractions.
    public let events: AsyncStream<RelayEvent>
    private let sync: RelaySync
    /// Finished by ``finish(after:)``; nil when the events go to a caller's stream (``RelayRun``).
    private let ownedSink: AsyncStream<RelayEvent>.Continuation?

    /// With `sink`, the relay's events go there (in order with the caller's own) and ``events``
    /// stays empty.
    init(configuration: RelayConfiguration, logger: Logger, sink: AsyncStream<RelayEvent>.Continuation? = nil) {
        let (events, ownSink) = AsyncStream<RelayEvent>.makeStream(bufferingPolicy: .bufferingNewest(64))
        if sink != nil { ownSink.finish() }
        let sync = RelaySync(configuration: configuration, logger: logger, events: sink ?? ownSink)
        self.events = events
        self.ownedSink = sink == nil ? ownSink : nil
        self.sync = sync
        flow = Flow.start("relay") { session in
            let message = try await sync.run(on: session)
            guard let identity = await sync.identity else { throw RelayError.card("no card identity") }
            return RelayResult(
                identity: identity, message: message, apduCount: await sync.apduCount,
                resumes: await sync.resumes)
        }
    }

    /// `base` without retries: the service decides what to do again; the card-return timeout
    /// bounds the wait for a lifted card.
    public func policy(base: SessionPolicy) -> SessionPolicy {
        var policy = base
        policy.retries = RetryPolicy(attempts: 0, backoff: .zero)
        return policy
    }

    /// Closes the conversation with the service and ends ``events``: `error` nil after the flow
    /// succeeded; otherwise the service hears `cancel` (cancellation) or `error` with the reason
    /// (nothing more when the service itself failed the sync). Runs to completion even when the
    /// calling task is cancelled.
    public func finish(after error: (any Error)?) async {
        let final: RelayClientMessage?
        if let error {
            if Task.isCancelled || error is CancellationError {
                final = .cancel(reason: "cancelled on the client")
            } else if case .serviceFailed = Self.relayError(error) {
                final = nil
            } else {
                final = .error(reason: Self.relayError(error).description)
            }
        } else {
            final = nil
        }
        await Task { [sync] in await sync.finish(final: final) }.value
        ownedSink?.finish()
    }

    /// Flow and session errors as relay errors (the relay's own come wrapped in the flow step).
    public static func relayError(_ error: any Error) -> RelayError {
        if let error = error as? RelayError { return error }
        if let error = error as? FlowError { return relayError(error.underlying) }
        return .card(String(describing: error))
    }
}

extension RelayClient {
    /// The sync as a flow to run on a reader (see ``RelayJob``).
    ///
    /// - Throws: ``RelayError/invalidURL(_:)`` before any card is touched.
    public func job() throws(RelayError) -> RelayJob {
        try job(events: nil)
    }

    func job(events sink: AsyncStream<RelayEvent>.Continuation?) throws(RelayError) -> RelayJob {
        try configuration.validateURL()
        return RelayJob(configuration: configuration, logger: logger, sink: sink)
    }
}
