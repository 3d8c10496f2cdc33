import Logging

/// One inbound USB pipe of a CCID device (bulk-IN or interrupt-IN) shared by its slots: while
/// anybody waits, one task reads the pipe, and each message goes to the slots it is for.
///
/// A slot ``open(_:)``s its key to collect the messages routed to it (its mailbox keeps them
/// until taken, a bounded number), takes them with ``next(for:timeout:)`` and ``close(_:)``s the
/// key when it is done. Several slots may wait at once; their messages do not depend on who
/// happens to be reading, so a slow answer on one slot never holds another slot's answer.
///
/// A caller that finds the pipe idle and nobody else waiting reads it in its own task, exactly
/// as if the pipe were its own (the single-slot case costs no extra task); whoever comes to
/// wait meanwhile is served by the messages it hands on, then by a pump task.
///
/// Timeouts: each read of the pump lasts as long as the shortest wait among the waiting slots
/// (a single waiter's read timeout is exactly its own, measured by the transport's clock); a
/// slot that starts waiting while a longer read is already in flight is timed by the
/// ``CCIDTimeSource``. Cancellation: a cancelled waiter leaves at once; when nobody is left
/// waiting, the transfer in flight is cancelled (it really stops), and the next read starts
/// only after that cancelled transfer has returned, so two reads never compete for a message.
actor InboundPipe {
    /// A slot number (bSlot): whom a message is for.
    typealias Key = UInt8

    /// Which keys a message is for.
    enum Destination: Sendable {
        /// One key (a bulk-IN answer): no array built per message.
        case key(Key)
        case keys([Key])
        /// Every open key (a message that cannot be attributed, such as a garbled frame).
        case everyone
    }

    /// What becomes of a message for keys nobody has open.
    enum UnclaimedMessages: Sendable {
        /// Every open key gets it, to judge (and count) as a stray frame.
        case shownToEveryone
        /// It is dropped (logged at debug, bounded).
        case dropped
    }

    typealias Outcome = Result<[UInt8], USBTransportError>
    typealias Read = nonisolated(nonsending) @Sendable (_ timeout: Duration) async throws(USBTransportError) -> [UInt8]

    private struct Waiter {
        let key: Key
        let timeout: Duration
        let started: Duration
        let continuation: CheckedContinuation<Outcome, Never>
        var timer: Task<Void, Never>?
    }

    private let endpoint: String
    private let read: Read
    private let route: @Sendable ([UInt8]) -> Destination
    private let unclaimed: UnclaimedMessages
    private let mailboxLimit: Int
    private let timeSource: any CCIDTimeSource
    private let logger: Logger

    private var mailboxes = SlotTable<[Outcome]>()
    private var waiters: [UInt64: Waiter] = [:]
    private var nextWaiterID: UInt64 = 0
    private var pump: Task<Void, Never>?
    private var pumpGeneration: UInt64 = 0
    /// The last pump told to stop; the next one reads only after it has returned.
    private var retiringPump: Task<Void, Never>?
    /// When the read in flight ends at the latest (nil: none in flight).
    private var readDeadline: Duration?
    /// A caller reads the pipe itself (it was alone): no pump may start meanwhile.
    private var callerReading = false
    private var unclaimedCount = 0
    private var droppedFromMailboxes = 0

    /// Unclaimed or overflowing messages logged one by one before the log thins out.
    static var loggedIndividually: Int { 8 }

    /// - Parameters:
    ///   - endpoint: the pipe's name in logs and timeout errors ("bulk-IN").
    ///   - mailboxLimit: messages one key keeps before the oldest is dropped.
    ///   - read: one transfer on the pipe with the given timeout.
    ///   - route: the keys a message is for.
    init(
        endpoint: String, unclaimed: UnclaimedMessages, mailboxLimit: Int, timeSource: any CCIDTimeSource,
        logger: Logger, read: @escaping Read, route: @escaping @Sendable ([UInt8]) -> Destination
    ) {
        self.endpoint = endpoint
        self.unclaimed = unclaimed
        self.mailboxLimit = max(1, mailboxLimit)
        self.timeSource = timeSource
        self.logger = logger
        self.read = read
        self.route = route
    }

    // MARK: - Keys

    /// Starts collecting the messages for `key`.
    func open(_ key: Key) {
        if !mailboxes.contains(key) { mailboxes[key] = [] }
    }

    /// Stops collecting for `key`; what its mailbox still holds is dropped.
    func close(_ key: Key) {
        mailboxes[key] = nil
    }

    /// Whether a transfer is on the pipe now (for tests).
    var isReading: Bool { readDeadline != nil }

    // MARK: - Taking messages

    /// The next message for `key` (opening it if needed), or `timeout`, `cancelled` or the
    /// pipe's transfer error. A zero timeout takes what is there: the mailbox, or one
    /// immediate read when the pipe is idle.
    ///
    /// - Parameter since: when the wait began on the ``CCIDTimeSource`` (now by default): a
    ///   caller that computed `timeout` from a deadline passes the time it did so. When the pipe
    ///   is idle, that reading also stands for "now" at its first transfer (one clock reading
    ///   less), so only a caller on this pipe's executor passes it (the driver shares it):
    ///   nothing can pass between its reading and the transfer.
    func next(for key: Key, timeout: Duration, since: Duration? = nil) async -> Outcome {
        open(key)
        if let first = takeFirst(for: key) { return first }
        if Task.isCancelled { return .failure(.cancelled) }
        if readDeadline != nil, timeout <= .zero {
            // A read is in flight; whatever the pipe held is already on its way.
            return .failure(.timeout(endpoint: endpoint, after: timeout))
        }
        let started = since ?? timeSource.now()
        if pump == nil, readDeadline == nil, waiters.isEmpty {
            return await readAlone(for: key, timeout: timeout, started: started)
        }
        let id = nextWaiterID
        nextWaiterID &+= 1
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Outcome, Never>) in
                if Task.isCancelled {
                    continuation.resume(returning: .failure(.cancelled))
                    return
                }
                var waiter = Waiter(key: key, timeout: timeout, started: started, continuation: continuation)
                if let readDeadline, started + timeout < readDeadline {
                    // The read in flight outlasts this wait: time it on its own.
                    waiter.timer = timer(for: id, deadline: started + timeout)
                }
                waiters[id] = waiter
                startPumpIfNeeded()
            }
        } onCancel: {
            Task { await self.finish(id, with: .failure(.cancelled)) }
        }
    }

    /// The pipe is idle and nobody else waits: the caller reads it in its own task (no pump
    /// task to start, and cancelling the caller cancels the transfer itself). Messages for
    /// other keys are handed on; whoever came to wait meanwhile gets a pump afterwards.
    private func readAlone(for key: Key, timeout: Duration, started: Duration) async -> Outcome {
        callerReading = true
        defer {
            callerReading = false
            startPumpIfNeeded()
        }
        // The first transfer starts at `started`: next() read the clock just now, or its caller
        // did, on this executor (the driver shares it), so nothing passed in between.
        var now = started
        while true {
            switch await readOnce(max(.zero, timeout - (now - started)), at: now) {
            case .success(let bytes):
                if let mine = dispatch(bytes, reader: key) { return .success(mine) }
                if let mine = takeFirst(for: key) { return mine }
                now = timeSource.now()
            case .failure(.timeout):
                return .failure(.timeout(endpoint: endpoint, after: timeout))
            case .failure(.cancelled):
                return .failure(.cancelled)
            case .failure(let error):
                for id in waiters.keys.sorted() { finish(id, with: .failure(error)) }
                return .failure(error)
            }
        }
    }

    /// One transfer on the pipe, with ``readDeadline`` set while it runs (a waiter arriving
    /// meanwhile knows how long the read in flight lasts). `now` is the time source's reading
    /// the caller computed `timeout` from.
    private func readOnce(_ timeout: Duration, at now: Duration) async -> Outcome {
        readDeadline = now + timeout
        defer { readDeadline = nil }
        do throws(USBTransportError) {
            return .success(try await read(timeout))
        } catch {
            return .failure(error)
        }
    }

    private func timer(for id: UInt64, deadline: Duration) -> Task<Void, Never> {
        let timeSource = self.timeSource
        return Task { [weak self] in
            do { try await timeSource.suspend(until: deadline) } catch { return }
            await self?.expire(id)
        }
    }

    private func expire(_ id: UInt64) {
        guard let waiter = waiters[id] else { return }
        finish(id, with: .failure(.timeout(endpoint: endpoint, after: waiter.timeout)))
    }

    private func finish(_ id: UInt64, with outcome: Outcome) {
        guard let waiter = waiters.removeValue(forKey: id) else { return }
        waiter.timer?.cancel()
        waiter.continuation.resume(returning: outcome)
        if waiters.isEmpty { stopPump() }
    }

    // MARK: - Reading the pipe

    private func startPumpIfNeeded() {
        guard pump == nil, !callerReading, !waiters.isEmpty else { return }
        pumpGeneration &+= 1
        let generation = pumpGeneration
        let previous = retiringPump
        pump = Task { await self.runPump(generation: generation, after: previous) }
    }

    /// Nobody waits: the transfer in flight is cancelled. A pump between reads needs no
    /// telling: it finds nobody waiting and ends in the same turn (so the next wait reuses no
    /// retired task and costs no extra hop).
    private func stopPump() {
        guard let pump, readDeadline != nil else { return }
        self.pump = nil
        pumpGeneration &+= 1
        retiringPump = pump
        pump.cancel()
    }

    private func runPump(generation: UInt64, after previous: Task<Void, Never>?) async {
        await previous?.value
        while !Task.isCancelled, !waiters.isEmpty {
            // The read lasts until the first waiter's time is up; that waiter (or those) time
            // out when it does.
            let now = timeSource.now()
            var timeout = Duration.zero
            var due: [UInt64] = []
            for (id, waiter) in waiters {
                let left = max(.zero, waiter.timeout - (now - waiter.started))
                if due.isEmpty || left < timeout {
                    timeout = left
                    due = [id]
                } else if left == timeout {
                    due.append(id)
                }
            }
            switch await readOnce(timeout, at: now) {
            case .success(let bytes):
                _ = dispatch(bytes)
            case .failure(.timeout):
                for id in due { expire(id) }
            case .failure(.cancelled) where Task.isCancelled:
                break
            case .failure(let error):
                // The pipe itself failed (stall, unplug, overflow): everyone waiting hears it.
                for id in waiters.keys.sorted() { finish(id, with: .failure(error)) }
            }
        }
        if generation == pumpGeneration { pump = nil }
    }

    /// The oldest message in `key`'s mailbox, taken out of it.
    private func takeFirst(for key: Key) -> Outcome? {
        guard mailboxes[key]?.isEmpty == false else { return nil }
        return mailboxes.update(key) { $0.removeFirst() }
    }

    /// Hands `bytes` to the keys it is for. A message for `reader` alone (the caller of
    /// ``readAlone(for:timeout:started:)``), whose mailbox is empty and on whose key nobody else
    /// waits, is returned instead: the message that caller would take from its mailbox next,
    /// without a mailbox append per message.
    private func dispatch(_ bytes: [UInt8], reader: Key? = nil) -> [UInt8]? {
        let destination = route(bytes)
        if case .key(let key) = destination, mailboxes.contains(key) {
            if key == reader, mailboxes[key]?.isEmpty == true, firstWaiter(for: key) == nil { return bytes }
            deliver(.success(bytes), to: key)
            return nil
        }
        var targets: [Key]
        switch destination {
        case .everyone: targets = mailboxes.slots
        // Not open (checked above).
        case .key: targets = []
        case .keys(let keys): targets = keys.filter { mailboxes.contains($0) }
        }
        if targets.isEmpty {
            unclaimedCount += 1
            if case .shownToEveryone = unclaimed { targets = mailboxes.slots }
            if unclaimedCount <= Self.loggedIndividually || unclaimedCount.isMultiple(of: 100) {
                logger.debug(
                    "\(endpoint) message for no waiting slot",
                    metadata: [
                        "bytes": "\(bytes.prefix(10).map(hex2).joined(separator: " "))",
                        "unclaimed": "\(unclaimedCount)", "shownTo": "\(targets.count)",
                    ])
            }
        }
        for key in targets { deliver(.success(bytes), to: key) }
        return nil
    }

    /// The longest-waiting waiter on `key` (the lowest id).
    private func firstWaiter(for key: Key) -> UInt64? {
        var first: UInt64?
        for (id, waiter) in waiters where waiter.key == key {
            if let lowest = first, lowest < id { continue }
            first = id
        }
        return first
    }

    private func deliver(_ outcome: Outcome, to key: Key) {
        if let id = firstWaiter(for: key) {
            finish(id, with: outcome)
            return
        }
        // Moved out of the table, so the append does not copy the mailbox.
        guard var mailbox = mailboxes.removeValue(forSlot: key) else { return }
        mailbox.append(outcome)
        if mailbox.count > mailboxLimit {
            mailbox.removeFirst()
            droppedFromMailboxes += 1
            if droppedFromMailboxes <= Self.loggedIndividually || droppedFromMailboxes.isMultiple(of: 100) {
                logger.debug(
                    "\(endpoint) mailbox full; dropping its oldest message",
                    metadata: ["slot": "\(key)", "dropped": "\(droppedFromMailboxes)"])
            }
        }
        mailboxes[key] = mailbox
    }
}
