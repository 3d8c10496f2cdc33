import CardFlow
import Testing

/// The flow's watchdog: one timer per run holds the run to its deadline and each step to the
/// step timeout.
@Suite("Flow watchdog")
struct FlowWatchdogTests {
    /// A flow of `count` steps that each wait `wait` on `clock`, then a step that waits `last`.
    static func waitingFlow(
        steps count: Int, each wait: Duration, clock: ManualClock, last: Duration? = nil
    ) -> Flow<Int> {
        var flow = Flow.start("wait 1") { _ in
            try await clock.suspend(until: clock.now() + wait)
            return 1
        }
        for step in 1..<count {
            flow = flow.then("wait \(step + 1)") { done, _ in
                try await clock.suspend(until: clock.now() + wait)
                return done + 1
            }
        }
        if let last {
            flow = flow.then("hang") { done, _ in
                try await clock.suspend(until: clock.now() + last)
                return done + 1
            }
        }
        return flow
    }

    static func policy(_ clock: ManualClock, stepTimeout: Duration) -> SessionPolicy {
        var policy = SessionPolicy()
        policy.clock = clock
        policy.stepTimeout = stepTimeout
        return policy
    }

    @Test("steps that each end within the step timeout pass, though the run lasts longer than it")
    func eachStepIsBoundedNotTheRun() async throws {
        let clock = ManualClock()
        let (reader, _) = await simulatedReader(clock: clock)
        let flow = Self.waitingFlow(steps: 4, each: .seconds(3), clock: clock)
        let policy = Self.policy(clock, stepTimeout: .seconds(5))
        let outcome = await clock.runAdvancing(by: .milliseconds(250), giveUpAt: .seconds(120)) {
            try await reader.run(flow, policy: policy).value
        }
        #expect(try outcome?.get() == 4)
        // Twelve seconds of steps against a five-second step timeout.
        #expect(clock.now() >= .seconds(12))
    }

    @Test("a step that outlasts the step timeout fails the run with a timeout that names it")
    func aHangingStepIsNamed() async throws {
        let clock = ManualClock()
        let (reader, _) = await simulatedReader(clock: clock)
        let flow = Self.waitingFlow(steps: 2, each: .seconds(4), clock: clock, last: .seconds(3600))
            .ensure { _ in }
        let policy = Self.policy(clock, stepTimeout: .seconds(5))
        let outcome = await clock.runAdvancing(by: .milliseconds(250), giveUpAt: .seconds(120)) {
            try await reader.run(flow, policy: policy).value
        }
        #expect(throws: SessionError.timedOut(what: "step 3 (hang)", after: .seconds(5))) { try outcome?.get() }
        // It fired no earlier than five seconds into the third step (which began at 8 s); had
        // it not fired, the hour-long step would have outlasted runAdvancing's 120 s (nil).
        #expect(clock.now() >= .seconds(13))
        // The reader is free for the next run.
        let next = await clock.runAdvancing(by: .milliseconds(250), giveUpAt: .seconds(240)) {
            try await reader.run(Self.waitingFlow(steps: 1, each: .seconds(1), clock: clock), policy: policy).value
        }
        #expect(try next?.get() == 1)
    }

    @Test("the flow's deadline fires before a step timeout that would come later")
    func theFlowDeadlineComesFirst() async throws {
        let clock = ManualClock()
        let (reader, _) = await simulatedReader(clock: clock)
        let flow = Self.waitingFlow(steps: 3, each: .seconds(4), clock: clock).timeout(.seconds(10))
        let policy = Self.policy(clock, stepTimeout: .seconds(5))
        let outcome = await clock.runAdvancing(by: .milliseconds(250), giveUpAt: .seconds(120)) {
            try await reader.run(flow, policy: policy).value
        }
        #expect(throws: SessionError.timedOut(what: "flow", after: .seconds(10))) { try outcome?.get() }
        // Not before the flow's ten seconds (the clock moves on while the run unwinds).
        #expect(clock.now() >= .seconds(10))
    }
}
