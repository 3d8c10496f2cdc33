import CardFlow
import CardFlowDaemonControl
import Logging

/// Runs jobs on readers, records them in the job log, publishes their progress, and cancels
/// them on request.
///
/// A job that cannot be logged (a full disk) still runs; the failure is logged and counted, and
/// the job gets an id that only lives in memory.
public actor JobCenter {
    private let log: JobLog?
    private let keys: (any KeyStore)?
    private let bus: EventBus
    private let metrics: DaemonMetrics
    private let logger: Logger
    private var running: [JobID: Task<JobState, Never>] = [:]
    private var nextEphemeralID: JobID = -1
    private var idleWaiters: [CheckedContinuation<Void, Never>] = []
    /// Progress events one job writes to the job log (a relay service can send progress forever).
    private let maximumEventsPerJob: Int

    public init(
        log: JobLog?, keys: (any KeyStore)?, bus: EventBus, metrics: DaemonMetrics, logger: Logger,
        maximumEventsPerJob: Int = DaemonLimits().maximumEventsPerJob
    ) {
        self.log = log
        self.maximumEventsPerJob = max(1, maximumEventsPerJob)
        self.keys = keys
        self.bus = bus
        self.metrics = metrics
        self.logger = logger
    }

    /// Starts `specification` on `reader` and returns the job's id at once.
    ///
    /// - Parameters:
    ///   - specification: the flow to run.
    ///   - reader: the reader whose card it runs on.
    ///   - rule: the rule that chose it, for the job log (nil for a control request).
    ///   - trigger: what started the job.
    ///   - policy: the session policy (the flow may adjust it, e.g. DESFire's identity).
    ///   - outbox: asked once the job ended, before it is logged, for a fleet completion to
    ///     commit with the job's record (nil: none); the completion then says what became of it.
    ///   - completion: called once the job ended and was logged, before ``wait(for:)``
    ///     returns (the fleet delivers its completion from there).
    @discardableResult
    public func submit(
        _ specification: FlowSpecification, on reader: Reader, rule: String?, trigger: JobTrigger,
        policy: SessionPolicy, outbox: (@Sendable (JobCompletion) async -> FleetOutboxDraft?)? = nil,
        completion: (@Sendable (JobCompletion) async -> Void)? = nil
    ) async -> JobID {
        let id = await beginRecord(reader: reader.info.id, rule: rule, flow: specification.kind, trigger: trigger)
        await bus.publish(.jobStarted(id, reader: reader.info.id, flow: specification.kind, rule: rule))
        logger.info(
            "job started",
            metadata: [
                "job": "\(id)", "reader": "\(reader.info.id)", "flow": "\(specification.kind)",
                "rule": "\(rule ?? "-")",
            ])
        let started = ContinuousClock.now
        let task = Task { [log, bus, metrics, logger, keys, maximumEventsPerJob] in
            let run: FlowRun<JobOutcome>
            let job: FlowJob
            do {
                job = try await specification.flow.job(DaemonFlowContext(keys: keys, logger: logger))
                run = reader.run(job.flow, policy: job.policy(policy))
            } catch {
                // A missing key or a bad parameter: the job fails before touching the card.
                var ended = JobCompletion(id: id, state: .failed, outcome: nil, error: error)
                ended.outboxDraft = await outbox?(ended)
                ended.outboxWrite = await Self.logEnd(
                    ended, error: String(describing: error), log: log, metrics: metrics, logger: logger)
                await Self.failEarly(
                    id, error: error, flow: specification.kind, bus: bus, metrics: metrics, logger: logger)
                await completion?(ended)
                return JobState.failed
            }
            let forwarding = Task {
                var recorded = 0
                var dropped = 0
                for await event in run.progress {
                    let keep = recorded < maximumEventsPerJob
                    if keep { recorded += 1 } else { dropped += 1 }
                    await Self.record(event, job: id, log: keep ? log : nil, bus: bus, logger: logger)
                    if !keep, let log, id >= 0, let step = Self.describe(event).completedStep {
                        // Past the cap the events are dropped, but the job's last step stays true.
                        try? await log.recordLastStep(id, step)
                    }
                }
                if dropped > 0, let log, id >= 0 {
                    logger.warning(
                        "job events beyond the limit were not logged",
                        metadata: ["job": "\(id)", "dropped": "\(dropped)", "limit": "\(maximumEventsPerJob)"])
                    try? await log.recordEvent(
                        id, kind: "eventsTruncated",
                        detail: "\(dropped) more events not logged (limit \(maximumEventsPerJob) per job)")
                }
            }
            let state: JobState
            var outcome: JobOutcome?
            var failure: String?
            var thrown: (any Error)?
            do {
                outcome = try await run.value
                state = .succeeded
                await job.finish(nil)
            } catch is CancellationError {
                state = .cancelled
                failure = "cancelled"
                thrown = CancellationError()
                await job.finish(CancellationError())
            } catch {
                state = Task.isCancelled ? .cancelled : .failed
                failure = String(describing: error)
                thrown = error
                await job.finish(error)
            }
            await forwarding.value
            var ended = JobCompletion(id: id, state: state, outcome: outcome, error: thrown)
            ended.outboxDraft = await outbox?(ended)
            ended.outboxWrite = await Self.logEnd(ended, error: failure, log: log, metrics: metrics, logger: logger)
            metrics.jobFinished(flow: specification.kind, state: state, duration: ContinuousClock.now - started)
            logger.info(
                "job finished", metadata: ["job": "\(id)", "state": "\(state.rawValue)", "error": "\(failure ?? "-")"])
            await bus.publish(.jobFinished(id, state: state, error: failure))
            await completion?(ended)
            return state
        }
        running[id] = task
        Task {
            _ = await task.value; self.forget(id)
        }
        return id
    }

    /// Cancels a running job: the APDU in flight is aborted and the card powered off. False when
    /// no such job runs.
    public func cancel(_ id: JobID) -> Bool {
        guard let task = running[id] else { return false }
        task.cancel()
        return true
    }

    /// Cancels every running job and waits for them to end (shutdown).
    public func cancelAll() async {
        let tasks = Array(running.values)
        for task in tasks { task.cancel() }
        for task in tasks { _ = await task.value }
    }

    /// Waits for a job to end; nil when it is not running (any more).
    public func wait(for id: JobID) async -> JobState? {
        guard let task = running[id] else { return nil }
        return await task.value
    }

    public var runningJobs: [JobID] { running.keys.sorted() }

    /// Returns once no job runs.
    public func waitUntilIdle() async {
        guard !running.isEmpty else { return }
        await withCheckedContinuation { idleWaiters.append($0) }
    }

    private func forget(_ id: JobID) {
        running[id] = nil
        if running.isEmpty {
            for waiter in idleWaiters { waiter.resume() }
            idleWaiters.removeAll()
        }
    }

    private func beginRecord(reader: String, rule: String?, flow: String, trigger: JobTrigger) async -> JobID {
        if let log {
            do {
                return try await log.begin(reader: reader, rule: rule, flow: flow, trigger: trigger)
            } catch {
                logger.error("job log write failed; the job runs unlogged", metadata: ["error": "\(error)"])
                metrics.jobLogFailure()
            }
        }
        defer { nextEphemeralID -= 1 }
        return nextEphemeralID
    }

    /// Records how a job ended, with its fleet completion (if any) in the same transaction, and
    /// returns what became of that completion (nil when there was none or no log). A job with an
    /// ephemeral id (its start was never logged) has no row to update.
    private static func logEnd(
        _ ended: JobCompletion, error: String?, log: JobLog?, metrics: DaemonMetrics, logger: Logger
    ) async -> FleetOutboxWrite? {
        guard let log, ended.id >= 0 || ended.outboxDraft != nil else { return nil }
        do {
            let entry = try await log.finish(
                ended.id, state: ended.state, outcome: ended.outcome, error: error, outbox: ended.outboxDraft)
            return ended.outboxDraft == nil ? nil : .written(entry)
        } catch {
            logger.error("job log write failed", metadata: ["job": "\(ended.id)", "error": "\(error)"])
            metrics.jobLogFailure()
            return ended.outboxDraft == nil ? nil : .failed
        }
    }

    /// Counts, logs and publishes a job that failed before it started (its end is logged apart).
    private static func failEarly(
        _ id: JobID, error: any Error, flow: String, bus: EventBus, metrics: DaemonMetrics, logger: Logger
    ) async {
        let reason = String(describing: error)
        metrics.jobFinished(flow: flow, state: .failed, duration: .zero)
        logger.warning("job failed before it started", metadata: ["job": "\(id)", "error": "\(reason)"])
        await bus.publish(.jobFinished(id, state: .failed, error: reason))
    }

    private static func record(_ event: FlowEvent, job id: JobID, log: JobLog?, bus: EventBus, logger: Logger) async {
        let (kind, completedStep, fraction) = describe(event)
        await bus.publish(.jobProgress(id, kind: kind, detail: event.description, fraction: fraction))
        logger.debug("job progress", metadata: ["job": "\(id)", "event": "\(event.description)"])
        guard let log, id >= 0 else { return }
        do {
            if case .connected(let identity) = event {
                try await log.recordCard(id, atr: identity.atr, uid: identity.uid)
            }
            try await log.recordEvent(id, kind: kind, detail: event.description, completedStep: completedStep)
        } catch {
            logger.error("job log write failed", metadata: ["job": "\(id)", "error": "\(error)"])
        }
    }

    private static func describe(_ event: FlowEvent) -> (kind: String, completedStep: String?, fraction: Double?) {
        switch event {
        case .waitingForCard: ("waitingForCard", nil, nil)
        case .connected: ("connected", nil, nil)
        case .stepStarted: ("stepStarted", nil, nil)
        case .stepFinished(_, _, let name): ("stepFinished", name, nil)
        case .retrying: ("retrying", nil, nil)
        case .cardLost: ("cardLost", nil, nil)
        case .wrongCard: ("wrongCard", nil, nil)
        case .resumed: ("resumed", nil, nil)
        case .progress(let fraction): ("progress", nil, fraction)
        case .completed: ("completed", nil, 1)
        case .failed: ("failed", nil, nil)
        }
    }
}

/// How a job ended, as ``JobCenter/submit(_:on:rule:trigger:policy:outbox:completion:)`` reports it.
public struct JobCompletion: Sendable {
    public var id: JobID
    public var state: JobState
    public var outcome: JobOutcome?
    /// What ended a failed or cancelled job.
    public var error: (any Error)?
    /// The fleet completion the job's end was asked to log (`submit`'s `outbox`); nil when none.
    public var outboxDraft: FleetOutboxDraft?
    /// What became of ``outboxDraft`` in the job log; nil when the job center has no log (or
    /// there was no draft).
    public var outboxWrite: FleetOutboxWrite?

    /// How a job ended, before the fleet's part is known.
    public init(id: JobID, state: JobState, outcome: JobOutcome?, error: (any Error)?) {
        self.id = id
        self.state = state
        self.outcome = outcome
        self.error = error
    }
}
