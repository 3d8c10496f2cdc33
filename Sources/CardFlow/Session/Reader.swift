import CCID
import Logging

/// One card reader: its identity, its card presence, and the sessions run on it.
///
/// Sessions on a reader are exclusive and granted in the order they were asked for; a
/// ``SessionPolicy/cooldown`` separates them. Different readers run in parallel.
///
/// ```swift
/// let info = try await reader.withSession { session in
///     try await session.send(try CommandAPDU(hex: "00A4040007A0000002471001")).statusWord
/// }
/// ```
public actor Reader {
    public nonisolated let info: ReaderInfo
    public nonisolated let driver: CCIDDriver
    public nonisolated let slot: UInt8
    let logger: Logger

    private var admission = FIFOAdmission()
    private var lastSessionEnd: Duration?

    // Card presence: the latest state and its subscribers.
    private var presence: CardPresence?
    private var subscribers: [UInt64: AsyncStream<CardPresence>.Continuation] = [:]
    private var nextSubscriber: UInt64 = 0
    private var monitor: Task<Void, Never>?
    private var presencePollInterval: Duration = .milliseconds(400)

    public init(info: ReaderInfo, driver: CCIDDriver, slot: UInt8 = 0, logger: Logger = Logger(label: "cardflow.reader")) {
        self.info = info
        self.driver = driver
        self.slot = slot
        var logger = logger
        logger[metadataKey: "reader"] = "\(info.name)"
        self.logger = logger
    }

    deinit {
        monitor?.cancel()
    }

    // MARK: - Presence

    /// Card presence as a stream that starts with the current state and then reports every
    /// change (from the interrupt endpoint, or by polling readers that have none).
    public func cardPresence() -> AsyncStream<CardPresence> {
        let (stream, continuation) = AsyncStream<CardPresence>.makeStream(bufferingPolicy: .bufferingNewest(8))
        let id = nextSubscriber
        nextSubscriber += 1
        subscribers[id] = continuation
        continuation.onTermination = { _ in Task { await self.unsubscribe(id) } }
        if let presence { continuation.yield(presence) }
        startMonitorIfNeeded()
        return stream
    }

    /// The card presence now (asks the reader).
    public func currentPresence() async throws -> CardPresence {
        let state = try await driver.slotStatus(slot: slot)
        let now: CardPresence = state.icc == .absent ? .absent : .present
        publish(now)
        return now
    }

    private func unsubscribe(_ id: UInt64) {
        subscribers[id] = nil
        if subscribers.isEmpty {
            monitor?.cancel()
            monitor = nil
        }
    }

    private func publish(_ state: CardPresence) {
        guard state != presence else { return }
        presence = state
        for continuation in subscribers.values { continuation.yield(state) }
    }

    /// Marks the card gone at once (a session saw it leave) without waiting for the monitor.
    func noteCardLost() {
        publish(.absent)
    }

    private func startMonitorIfNeeded() {
        guard monitor == nil else { return }
        let driver = self.driver
        let slot = self.slot
        let interval = presencePollInterval
        monitor = Task { [weak self] in
            // The first report is the state now; then interrupt messages, or polling.
            if let state = try? await driver.slotStatus(slot: slot) {
                await self?.publish(state.icc == .absent ? .absent : .present)
            }
            var polling = false
            while !Task.isCancelled {
                if !polling {
                    do {
                        if case .slotChange(let changes)? = try await driver.readInterrupt(timeout: .seconds(1)),
                           let change = changes.first(where: { $0.slot == Int(slot) }) {
                            await self?.publish(change.cardPresent ? .present : .absent)
                        }
                        continue
                    } catch CCIDDriverError.transport(.noInterruptEndpoint, _) {
                        polling = true
                    } catch is CancellationError {
                        return
                    } catch {
                        // Reader gone or broken: stop monitoring; sessions report the error.
                        await self?.finishSubscribers()
                        return
                    }
                }
                try? await Task.sleep(for: interval)
                if let state = try? await driver.slotStatus(slot: slot) {
                    await self?.publish(state.icc == .absent ? .absent : .present)
                }
            }
        }
    }

    private func finishSubscribers() {
        for continuation in subscribers.values { continuation.finish() }
        subscribers.removeAll()
        monitor = nil
    }

    // MARK: - Sessions

    /// Waits (bounded by the policy) for a card, powers it on and returns a session. Close it
    /// with ``CardSession/close()``, or use ``withSession(policy:_:)`` which always does.
    public func connect(policy: SessionPolicy = .default) async throws -> CardSession {
        try await enterSession()
        do {
            try await honourCooldown(policy)
            let session = try await openSession(policy: policy, events: nil)
            return session
        } catch {
            leaveSession(clock: policy.clock)
            throw error
        }
    }

    /// Runs `body` with a session on this reader's card and closes the session afterwards,
    /// whether `body` returns, throws or is cancelled.
    public func withSession<T: Sendable>(policy: SessionPolicy = .default,
                                         _ body: @Sendable (CardSession) async throws -> T) async throws -> T {
        let session = try await connect(policy: policy)
        do {
            let value = try await body(session)
            await session.close()
            return value
        } catch {
            await session.close()
            throw error
        }
    }

    /// Starts a flow on this reader; observe ``FlowRun/progress`` and await ``FlowRun/value``.
    /// Cancelling the task that awaits `value` (or calling ``FlowRun/cancel()``) stops it.
    public nonisolated func run<Output: Sendable>(_ flow: Flow<Output>, policy: SessionPolicy = .default) -> FlowRun<Output> {
        FlowRun(flow: flow, reader: self, policy: policy)
    }

    /// Waits for the card, powers it on and builds the session (admission already held).
    func openSession(policy: SessionPolicy, events: FlowEventSink?) async throws -> CardSession {
        let clock = policy.clock
        let deadline = clock.now() + policy.connectTimeout
        if try await currentPresence() == .absent {
            events?.emit(.waitingForCard)
            try await waitForPresence(.present, until: deadline, policy: policy)
        }
        while true {
            do {
                let atr = try await driver.powerOn(slot: slot)
                let session = CardSession(reader: self, atr: atr, policy: policy, events: events)
                try await session.establishIdentity()
                return session
            } catch CCIDDriverError.noCard {
                // The card left between the presence check and power-on: wait again.
                publish(.absent)
                events?.emit(.waitingForCard)
                try await waitForPresence(.present, until: deadline, policy: policy)
            }
        }
    }

    /// Waits until presence equals `wanted`, or throws when `deadline` passes.
    func waitForPresence(_ wanted: CardPresence, until deadline: Duration, policy: SessionPolicy) async throws {
        let clock = policy.clock
        let stream = cardPresence()
        let waited = max(.zero, deadline - clock.now())
        let reached: Bool = try await withThrowingTaskGroup(of: Bool.self) { group in
            group.addTask {
                for await state in stream where state == wanted { return true }
                return false
            }
            group.addTask {
                try await clock.suspend(until: deadline)
                return false
            }
            defer { group.cancelAll() }
            return try await group.next() ?? false
        }
        try Task.checkCancellation()
        guard reached else {
            // The monitor may lag a poll interval: ask the reader once more before giving up.
            if try await currentPresence() == wanted { return }
            throw wanted == .present ? SessionError.noCard(waited: waited) : SessionError.timedOut(what: "waiting for the card to leave", after: waited)
        }
    }

    func enterSession() async throws {
        guard let ticket = admission.tryEnter() else { return }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                if Task.isCancelled {
                    continuation.resume(throwing: CancellationError())
                } else {
                    admission.enqueue(ticket, continuation)
                }
            }
        } onCancel: {
            Task { await self.cancelAdmission(ticket) }
        }
    }

    private func cancelAdmission(_ ticket: UInt64) {
        admission.cancel(ticket)
    }

    func leaveSession(clock: any ElapsedClock) {
        lastSessionEnd = clock.now()
        admission.leave()
    }

    func honourCooldown(_ policy: SessionPolicy) async throws {
        guard policy.cooldown > .zero, let end = lastSessionEnd else { return }
        let resume = end + policy.cooldown
        if policy.clock.now() < resume {
            logger.debug("cooling down before the next session", metadata: ["cooldown": "\(policy.cooldown)"])
            try await policy.clock.suspend(until: resume)
        }
    }
}
