import Logging

/// Runs a flow's steps on one card, recovering when the card is lifted and put back.
struct FlowRunner<Output: Sendable> {
    let flow: Flow<Output>
    let reader: Reader
    let policy: SessionPolicy
    let events: FlowEventSink

    func run() async throws -> Output {
        let stepTimeout = policy.stepTimeout
        guard let watchdog = FlowWatchdog(clock: policy.clock, flowTimeout: flow.deadline, stepTimeout: stepTimeout)
        else { return try await runSteps(watchdog: nil) }
        let ending = try await withThrowingTaskGroup(of: Ending.self) { group in
            group.addTask { .finished(try await runSteps(watchdog: watchdog)) }
            group.addTask { .expired(try await watchdog.expiry()) }
            // The first to end wins; the other is cancelled (an APDU in flight is aborted) and awaited.
            defer { group.cancelAll() }
            guard let first = try await group.next() else { throw CancellationError() }
            return first
        }
        switch ending {
        case .finished(let output):
            return output
        case .expired(.flow):
            throw SessionError.timedOut(what: "flow", after: flow.deadline ?? .zero)
        case .expired(.step(let index)):
            throw SessionError.timedOut(
                what: "step \(index + 1) (\(flow.steps[index].name))", after: stepTimeout ?? .zero)
        }
    }

    /// How a run bounded by its watchdog ended.
    private enum Ending: Sendable {
        case finished(Output)
        case expired(FlowWatchdog.Expiry)
    }

    private func runSteps(watchdog: FlowWatchdog?) async throws -> Output {
        try await reader.enterSession()
        var session: CardSession?
        do {
            try await reader.honourCooldown(policy)
            let opened = try await reader.openSession(policy: policy, events: events)
            session = opened
            events.emit(.connected(await opened.identity))
            let result = try await runSteps(on: opened, watchdog: watchdog)
            await finish(session)
            return result
        } catch {
            await finish(session)
            if session == nil { await reader.leaveSession(clock: policy.clock) }
            throw error
        }
    }

    /// Runs finalizers and closes the session, even when the flow was cancelled.
    private func finish(_ session: CardSession?) async {
        let finalizers = flow.finalizers
        await Task {
            for finalizer in finalizers { await finalizer(session) }
            await session?.closeInUncancelledTask()
        }.value
    }

    private func runSteps(on session: CardSession, watchdog: FlowWatchdog?) async throws -> Output {
        let steps = flow.steps
        let total = steps.count
        let cardKey = await session.identity.key
        var value: any Sendable = ()
        var index = 0
        while index < total {
            let step = steps[index]
            events.emit(.stepStarted(index: index, total: total, name: step.name))
            watchdog?.stepBegan(index)
            value = try await runStep(step, index: index, input: value, session: session, cardKey: cardKey)
            watchdog?.stepEnded()
            events.emit(.stepFinished(index: index, total: total, name: step.name))
            index += 1
            if policy.reconnectBetweenSteps, index < total {
                try await withCardRecovery(index: index, session: session, cardKey: cardKey) {
                    try await session.reconnect()
                }
            }
        }
        return value as! Output
    }

    /// One step with its retries and card-loss recovery (the watchdog bounds it by the step timeout).
    private func runStep(
        _ step: FlowStep, index: Int, input: any Sendable, session: CardSession,
        cardKey: [UInt8]
    ) async throws -> any Sendable {
        let retry = step.retry ?? policy.retries
        var attempt = 0
        var interrupted = false
        while true {
            // Outside the retry handling: a gate's refusal ends the flow as it is.
            if let gate = policy.beforeStep {
                try await gate(FlowStepGate(index: index, name: step.name, idempotent: step.idempotent))
            }
            do {
                if interrupted, !step.idempotent {
                    // The step may have taken effect before the card left: ask the step.
                    guard let verify = step.verify else {
                        throw SessionError.unverifiableStepInterrupted(step: index, name: step.name)
                    }
                    if let done = try await verify(input, session) { return done }
                }
                return try await step.body(input, session)
            } catch let error where error.meansCardLost {
                interrupted = true
                events.emit(.cardLost(index: index))
                // A zero card-return timeout turns recovery off: the loss is the answer.
                guard policy.cardReturnTimeout > .zero else { throw error }
                try await recoverCard(session: session, cardKey: cardKey)
                events.emit(.resumed(index: index))
            } catch let error as SessionError {
                throw FlowError(stepIndex: index, stepName: step.name, underlying: error)
            } catch is CancellationError {
                throw CancellationError()
            } catch {
                attempt += 1
                guard attempt <= retry.attempts else {
                    throw FlowError(stepIndex: index, stepName: step.name, underlying: error)
                }
                events.emit(.retrying(index: index, attempt: attempt, reason: String(describing: error)))
                let pause = retry.delay(beforeRetry: attempt)
                if pause > .zero { try await policy.clock.suspend(until: policy.clock.now() + pause) }
            }
        }
    }

    /// Runs `operation`, recovering the card once if it is lost during it.
    private func withCardRecovery(
        index: Int, session: CardSession, cardKey: [UInt8],
        _ operation: () async throws -> Void
    ) async throws {
        do {
            try await operation()
        } catch let error where error.meansCardLost {
            events.emit(.cardLost(index: index))
            guard policy.cardReturnTimeout > .zero else { throw error }
            try await recoverCard(session: session, cardKey: cardKey)
            events.emit(.resumed(index: index))
        }
    }

    /// Waits (bounded) for the flow's own card: other cards are reported and left alone (only
    /// identified, never sent the step's commands).
    func recoverCard(session: CardSession, cardKey: [UInt8]) async throws {
        let clock = policy.clock
        let deadline = clock.now() + policy.cardReturnTimeout
        await reader.noteCardLost()
        var lastWrongKey: [UInt8]?
        while true {
            events.emit(.waitingForCard)
            do {
                try await reader.waitForPresence(.present, until: deadline, policy: policy)
            } catch SessionError.noCard {
                throw SessionError.cardDidNotReturn(waited: policy.cardReturnTimeout)
            }
            // A card is there: identify it; while it is another card, look again whenever the
            // reader reports a change or a poll interval passes (a quick swap may show no gap).
            do {
                while true {
                    if try await session.resume(expecting: cardKey) { return }
                    let stranger = await session.identity
                    if stranger.key != lastWrongKey {
                        events.emit(.wrongCard(stranger))
                        lastWrongKey = stranger.key
                    }
                    let now = clock.now()
                    guard now < deadline else { throw SessionError.cardDidNotReturn(waited: policy.cardReturnTimeout) }
                    await reader.awaitPresenceNotification(
                        until: min(deadline, now + policy.presencePollInterval), clock: clock)
                    try Task.checkCancellation()
                    if try await reader.currentPresence() == .absent { break }
                }
            } catch let error where error.meansCardLost {
                await reader.noteCardLost()
            }
        }
    }
}
