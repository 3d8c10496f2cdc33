import CardFlowAsyncAdmission
import Logging
import Metrics

/// One card reader: its identity, its card presence, and the sessions run on it.
///
/// Sessions on a reader are exclusive and granted in the order they were asked for; a
/// ``SessionPolicy/cooldown`` separates them. Different readers run in parallel. The reader
/// talks to its card through a ``ReaderDriver``: a USB CCID reader, a network reader, pcscd…
///
/// ```swift
/// let info = try await reader.withSession { session in
///     try await session.send(try CommandAPDU(hex: "00A4040007A0000002471001")).statusWord
/// }
/// ```
public actor Reader: DeadlineWaiting {
    public nonisolated let info: ReaderInfo
    /// The backend this reader runs on.
    public nonisolated let driver: any ReaderDriver
    let logger: Logger
    /// The APDU counters and timer of every session on this reader: made once, because their
    /// labels and dimensions are the reader's, and making them (five objects) for each session
    /// was a fifth of a session's set-up allocations.
    nonisolated let apduMetrics: MetricsCardChannel

    private var admission = FIFOAdmission()
    private var lastSessionEnd: Duration?

    // Card presence: the latest state and its subscribers.
    private var presence: CardPresence?
    private var subscribers: [UInt64: AsyncStream<CardPresence>.Continuation] = [:]
    private var nextSubscriber: UInt64 = 0
    private var monitor: Task<Void, Never>?
    /// How often the presence monitor asks a reader that announces nothing, and the clock it
    /// waits on between asks.
    private let presencePollInterval: Duration
    private let presenceClock: any ElapsedClock

    /// - Parameters:
    ///   - info: the reader's identity and capabilities.
    ///   - driver: the backend that talks to the card.
    ///   - logger: reader events at debug; every APDU at trace (secrets redacted).
    ///   - metricsFactory: where APDU counters and timers go (the bootstrapped system by default).
    ///   - presencePollInterval: how often ``cardPresence()`` asks a reader that announces
    ///     nothing (a uFR, vpcd or PC/SC reader polled for its card): one presence check per
    ///     interval and nothing in between.
    ///   - presenceClock: the clock those polls wait on (a ``ManualClock`` in tests).
    public init(
        info: ReaderInfo, driver: any ReaderDriver, logger: Logger = Logger(label: "cardflow.reader"),
        metricsFactory: any MetricsFactory = MetricsSystem.factory,
        presencePollInterval: Duration = .milliseconds(400), presenceClock: any ElapsedClock = RealClock()
    ) {
        self.info = info
        self.driver = driver
        self.apduMetrics = MetricsCardChannel(
            wrapping: ReaderDriverChannel(driver: driver), readerName: info.name, factory: metricsFactory)
        self.presencePollInterval = presencePollInterval
        self.presenceClock = presenceClock
        var logger = logger
        logger[metadataKey: "reader"] = "\(info.name)"
        self.logger = logger
    }

    deinit {
        monitor?.cancel()
    }

    /// The reader runs on its driver's executor, as its sessions do: opening a session (presence
    /// check, power-on, identity) and an APDU's way to the driver take no actor hops.
    public nonisolated var unownedExecutor: UnownedSerialExecutor {
        driver.unownedExecutor
    }

    // MARK: - Presence

    /// Card presence as a stream that starts with the current state and then reports every
    /// change (as the reader announces it, or by polling readers that announce nothing).
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
        let now = try await driver.presence()
        publish(now, announced: false)
        return now
    }

    private func unsubscribe(_ id: UInt64) {
        subscribers[id] = nil
        stopMonitorIfIdle()
    }

    /// Records the presence the reader reported. Waiters wake on a change, or when the reader
    /// announced a slot change (a swap reads present → present); a plain status read that finds
    /// nothing new wakes nobody, or a waiter that restarts the monitor would wake itself forever.
    private func publish(_ state: CardPresence, announced: Bool) {
        let changed = state != presence
        // Waiters re-check the reader themselves; a notification only wakes them early.
        if changed || announced { wakePresenceWaiters() }
        guard changed else { return }
        presence = state
        for continuation in subscribers.values { continuation.yield(state) }
    }

    /// Marks the card gone at once (a session saw it leave) without waiting for the monitor.
    func noteCardLost() {
        publish(.absent, announced: true)
    }

    private var monitorWanted: Bool { !subscribers.isEmpty || !deadlineWaiters.isEmpty }

    private func stopMonitorIfIdle() {
        guard !monitorWanted else { return }
        monitor?.cancel()
        monitor = nil
    }

    /// Watches the reader while someone cares: the reader's announcements wake it (a CCID
    /// reader's NotifySlotChange on its interrupt endpoint), readers that announce nothing are
    /// polled. The reader's presence check says what is there now; an announcement that the
    /// card left counts as well, because a card taken away and another put down before the
    /// check would otherwise read present → present, and the new card would never be reported
    /// (a fast swap; the soak's stalled readers were this).
    private func startMonitorIfNeeded() {
        guard monitor == nil else { return }
        let driver = self.driver
        let interval = presencePollInterval
        let clock = presenceClock
        let logger = self.logger
        monitor = Task { [weak self] in
            var polling = false
            var askReader = false
            var announced = false
            var unreadableNotices = 0
            // Notices the reader queued while nobody watched describe changes older than the
            // presence check that starts monitoring: a stale removal must not report the card
            // twice. They are read without waiting (a zero timeout: no wait on the reader's
            // clock, which may be a test's manual one) and dropped, at most
            // `maximumDiscardedNotices` of them, then the reader is asked.
            var discardable: Int? = Self.maximumDiscardedNotices // nil once drained
            while !Task.isCancelled {
                if askReader, let state = try? await driver.presence() {
                    await self?.publish(state, announced: announced)
                }
                if polling {
                    try? await clock.suspend(until: clock.now() + interval)
                    continue
                }
                let notice: PresenceNotice
                do {
                    notice = try await driver.nextPresenceNotice(timeout: discardable == nil ? .seconds(30) : .zero)
                } catch {
                    // Reader gone, or monitoring cancelled: stop; sessions report the error.
                    if !(error is CancellationError) && !Task.isCancelled { await self?.finishSubscribers() }
                    return
                }
                if let left = discardable {
                    switch notice {
                    case .unsupported, .failed:
                        discardable = nil // nothing to drain: handled below
                    default:
                        discardable = notice == .quiet || left <= 1 ? nil : left - 1
                        askReader = discardable == nil
                        continue
                    }
                }
                switch notice {
                case .quiet:
                    askReader = false
                    announced = false
                case .changed:
                    askReader = true
                    announced = true
                case .removed:
                    await self?.publish(.absent, announced: true)
                    askReader = true
                    announced = true
                case .arrived:
                    // The card may be gone again by the time the reader is asked (put down and
                    // lifted, or swapped, faster than the check): it still came, and is reported.
                    await self?.publish(.present, announced: true)
                    askReader = true
                    announced = true
                case .unreadable(let reason):
                    // Like pcsc-lite: log it and ask the reader; monitoring goes on. The first is a
                    // warning, a stream of them is not worth a log line each.
                    unreadableNotices += 1
                    let level: Logger.Level = unreadableNotices == 1 ? .warning : .debug
                    logger.log(
                        level: level, "unexpected presence notice; asking the reader",
                        metadata: ["error": "\(reason)", "count": "\(unreadableNotices)"])
                    askReader = true
                    announced = true
                case .unsupported:
                    polling = true
                    askReader = true
                case .failed(let reason):
                    // A stalled or misbehaving notification channel: poll instead, rather than
                    // stop reporting the card.
                    logger.warning(
                        "reader stopped announcing card presence; polling instead", metadata: ["error": "\(reason)"])
                    polling = true
                    askReader = true
                }
            }
        }
    }

    /// At most this many queued notices are dropped when monitoring starts (a reader that
    /// never stops sending must not keep monitoring from starting).
    static let maximumDiscardedNotices = 16

    private func finishSubscribers() {
        for continuation in subscribers.values { continuation.finish() }
        subscribers.removeAll()
        wakePresenceWaiters()
        monitor = nil
    }

    // Tasks waiting for a presence change, woken by publish() or by their timer.
    package var deadlineWaiters = DeadlineWaiters<Void, Void>()

    private func wakePresenceWaiters() {
        deadlineWaiters.wakeAll()
    }

    /// Suspends until a presence notification or `deadline` on `clock`, whichever comes first.
    func awaitPresenceNotification(until deadline: Duration, clock: any ElapsedClock) async {
        await suspendUntilWoken(tag: (), until: deadline, clock: clock) { startMonitorIfNeeded() }
        stopMonitorIfIdle()
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
    public func withSession<T: Sendable>(
        policy: SessionPolicy = .default,
        _ body: @Sendable (CardSession) async throws -> T
    ) async throws -> T {
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
    public nonisolated func run<Output: Sendable>(_ flow: Flow<Output>, policy: SessionPolicy = .default) -> FlowRun<
        Output
    > {
        FlowRun(flow: flow, reader: self, policy: policy)
    }

    /// Waits for the card, powers it on and builds the session (admission already held).
    func openSession(policy: SessionPolicy, events: FlowEventSink?) async throws -> CardSession {
        let clock = policy.clock
        let deadline = clock.now() + policy.connectTimeout
        if try await currentPresence() == .absent {
            events?.emit(.waitingForCard)
            try await waitForPresence(.present, until: deadline, wait: policy.connectTimeout, policy: policy)
        }
        while true {
            do {
                let atr = try await driver.powerOn(protocol: policy.transmissionProtocol)
                let session = CardSession(reader: self, atr: atr, policy: policy, events: events)
                try await session.establishIdentity()
                return session
            } catch let error where error.cardLoss == .notActivated {
                // A reader with an RF field of its own (it reads the card's UID) could not single
                // out a card; a network reader's card side explains itself in its own terms.
                guard info.capabilities.readsCardUID else { throw error }
                throw SessionError.cardNotActivated
            } catch let error where error.cardLoss == .noCard {
                // The card left between the presence check and power-on: wait again.
                publish(.absent, announced: true)
                events?.emit(.waitingForCard)
                try await waitForPresence(.present, until: deadline, wait: policy.connectTimeout, policy: policy)
            }
        }
    }

    /// Waits until presence equals `wanted`, or throws when `deadline` passes. The reader is
    /// asked directly each time; notifications (or the poll interval) say when to ask again.
    /// `wait`: the wait the deadline was set for, which the error reports (what is left of it
    /// by the time this runs is a little less: "0.299 seconds" for the user's 0.3).
    func waitForPresence(
        _ wanted: CardPresence, until deadline: Duration, wait: Duration? = nil, policy: SessionPolicy
    ) async throws {
        let clock = policy.clock
        let waited = wait ?? max(.zero, deadline - clock.now())
        while true {
            if try await currentPresence() == wanted { return }
            try Task.checkCancellation()
            let now = clock.now()
            guard now < deadline else {
                throw wanted == .present
                    ? SessionError.noCard(waited: waited)
                    : SessionError.timedOut(what: "waiting for the card to leave", after: waited)
            }
            await awaitPresenceNotification(until: min(deadline, now + policy.presencePollInterval), clock: clock)
        }
    }

    func enterSession() async throws {
        guard let ticket = admission.tryEnter() else { return }
        try await FIFOAdmission.wait(
            enqueue: { admission.enqueue(ticket, $0) }, cancel: { await self.cancelAdmission(ticket) })
    }

    private func cancelAdmission(_ ticket: UInt64) {
        admission.cancel(ticket)
    }

    /// How many sessions wait for this reader (tests gate on it).
    var sessionsWaiting: Int { admission.waitingCount }

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
