import CardFlow
import CardFlowDaemonControl
import CardFlowFleet
import Foundation
import Logging

/// This host's part in a fleet: claims a record when a blank card arrives, runs the record's
/// flow under a lease, and reports how it ended through the job log's outbox.
///
/// - A claim binds the card's UID to the record in the same transaction (one card, one record).
/// - While the flow runs, a heartbeat renews the lease every third of its length. A step starts
///   only while the lease is known to hold (renewed, with a sixth of it to spare): a host that
///   cannot reach the store, or whose record was claimed by another host, stops before the next
///   step. Its card then goes on the spoilage list when the record is claimed again.
/// - A claim answered after its lease may have run out, or a job that ended before its first
///   step, wrote nothing: the claim is released (the record is pending again, the attempt does
///   not count, the card stays blank) instead of recorded as failed.
/// - A claim that took the record from an expired one tells the store when its first step
///   begins. Until then, a completion of the earlier claim (a host that wrote its card but could
///   not report in time) wins, and this claim stops before touching its card.
/// - How the flow ended is committed to the outbox (SQLite) before the store is asked; entries
///   the store did not take are retried with the same token until it does, so nothing is lost
///   and nothing applied twice. One delivery pass runs at a time, whoever asks (a job's end, the
///   retry loop, the first claim after a restart), so each completion is sent once. A completion
///   whose token no longer matches is fenced, counted, and dropped.
/// - A blank card with nothing to claim waits for the store's notification (or a poll) while it
///   stays on the reader.
/// - The host's counts reach the hosts table in batches: at most one upsert per report interval,
///   sent when they changed (or a heartbeat is due), not one per card; ``flushReport()`` sends
///   the last ones at shutdown, so a restart finds the run's totals complete.
public actor FleetWorker {
    public nonisolated let settings: FleetSettings
    private let queue: any FleetQueue
    private let log: JobLog?
    private let metrics: DaemonMetrics
    private let logger: Logger
    private let version: String
    private let readers: @Sendable () async -> [String]
    private let reportClock: any ElapsedClock
    private let reportInterval: Duration
    /// The counts the hosts table has from this run, and when (on `reportClock`) they were sent.
    private var lastSentReport: FleetHostReport?
    private var lastReportTime: Duration?
    private let startedAt = Date()
    /// This run of the host: the store adds an earlier run's counters to the host's totals.
    private let session = UUID()

    private struct HeldClaim {
        var claim: FleetClaim
        /// Until when the lease is known to hold (the send time of the last renewal plus the lease).
        var deadline: ContinuousClock.Instant
        var lost = false
        /// Whether a step was let through: from then on the card may have been written.
        var stepBegun = false
    }
    private var held: [Int64: HeldClaim] = [:]
    /// Completions that could not be written to the outbox (no job log, or a full disk): kept
    /// in memory and delivered like the others.
    private var unlogged: [FleetOutboxEntry] = []
    private var nextUnloggedID: Int64 = -1
    /// Outbox entries known to be pending, oldest first: this run's completions as they are
    /// committed, and what reads of the outbox found. Once a read found every pending entry
    /// (`outboxInMemory`), this list is the whole outbox's pending part and passes deliver from
    /// it without reading the job log; the log is still written first and marked after.
    private var fresh: [FleetOutboxEntry] = []
    /// The last id the outbox had given when it was last read: a completion committed with a
    /// higher id was not in that read, so it joins `fresh`; one with a lower id was, so it
    /// does not (whoever read it delivers it).
    private var outboxReadThrough: Int64 = 0
    private var outboxInMemory = false
    private var wakeGeneration = 0
    private var claims = 0
    private var completions = 0
    private var fencedWrites = 0
    private var leaseLosses = 0
    private var outboxDepth = 0
    private var schemaReady = false
    /// Whether the outbox a previous run left was offered to the store before this run's first
    /// claim: otherwise a restarted host whose lease ran out meanwhile would claim its own record
    /// again, spoil the card it had finished, and have its saved completion fenced.
    private var outboxOffered = false
    /// The outbox delivery pass in flight: one at a time, so a completion is sent once.
    private var deliveryPass: Task<Void, Never>?
    /// Delivery requests are numbered; a pass covers every request made before it read the outbox.
    private var deliveryRequests = 0
    private var deliveredThrough = 0

    private var lease: Duration { .seconds(settings.leaseSeconds) }
    private var margin: Duration { .seconds(settings.leaseSeconds) / 6 }

    /// A worker that reports to the hosts table at most once a second, on the real clock.
    public init(
        settings: FleetSettings, queue: any FleetQueue, log: JobLog?, metrics: DaemonMetrics, version: String,
        readers: @escaping @Sendable () async -> [String], logger: Logger
    ) {
        self.init(
            settings: settings, queue: queue, log: log, metrics: metrics, version: version, readers: readers,
            reportClock: RealClock(), reportInterval: .seconds(1), logger: logger)
    }

    /// A worker whose reports to the hosts table `reportClock` paces.
    ///
    /// - Parameters:
    ///   - settings: the batch, lease, host name and poll interval.
    ///   - queue: the fleet store (`CardFlowFleetPostgres.FleetStore`).
    ///   - log: the job log, whose outbox keeps completions across outages and restarts.
    ///   - metrics: where claims, completions, fenced writes, lease losses and the outbox depth are counted.
    ///   - version: the CardFlow version the host reports.
    ///   - readers: the reader identifiers to report in the host's heartbeat.
    ///   - reportClock: paces the host reports (tests move a `ManualClock`).
    ///   - reportInterval: the least time between two host reports.
    ///   - logger: where the worker logs.
    public init(
        settings: FleetSettings, queue: any FleetQueue, log: JobLog?, metrics: DaemonMetrics, version: String,
        readers: @escaping @Sendable () async -> [String], reportClock: any ElapsedClock,
        reportInterval: Duration, logger: Logger
    ) {
        self.settings = settings
        self.queue = queue
        self.log = log
        self.metrics = metrics
        self.version = version
        self.readers = readers
        self.reportClock = reportClock
        self.reportInterval = max(reportInterval, .milliseconds(10))
        var logger = logger
        logger[metadataKey: "batch"] = "\(settings.batch)"
        self.logger = logger
    }

    /// Keeps the store's connections, the schema, the heartbeat, the outbox delivery and the
    /// wake-ups going until the task is cancelled.
    public func run() async {
        await withDiscardingTaskGroup { group in
            group.addTask { await self.queue.run() }
            group.addTask { await self.prepareSchema() }
            group.addTask { await self.leaseLoop() }
            group.addTask { await self.reportLoop() }
            group.addTask { await self.deliveryLoop() }
            group.addTask {
                for await _ in self.queue.wakeUps(batch: self.settings.batch, retryInterval: .seconds(2)) {
                    await self.wake()
                }
            }
        }
    }

    /// What the host has counted since it started (its heartbeat carries the same).
    public var report: FleetHostReport {
        FleetHostReport(
            name: settings.hostName, version: version, batch: settings.batch, readers: [],
            runningJobs: held.count, claims: claims, completions: completions, fencedWrites: fencedWrites,
            leaseLosses: leaseLosses, outboxDepth: outboxDepth, startedAt: startedAt, session: session)
    }

    // MARK: Cards

    /// Claims a record for the card and runs it to its end; nil when no job ran (the card is
    /// not blank, has no UID, or left while nothing was claimable).
    public func handle(
        card facts: CardFacts, on reader: Reader, rule: String, template: FleetFlowTemplate, jobs: JobCenter,
        policy: SessionPolicy
    ) async -> JobID? {
        guard let uid = facts.uid, !uid.isEmpty else {
            logger.warning(
                "a fleet card needs a UID; this one reported none", metadata: ["reader": "\(reader.info.id)"])
            return nil
        }
        guard let claim = await claimRecord(uid: uid, reader: reader) else { return nil }
        let specification: FlowSpecification
        do {
            specification = try template.specification(for: claim.parameters)
        } catch {
            logger.error(
                "fleet record cannot be run", metadata: ["record": "\(claim.recordID)", "error": "\(error)"])
            let draft = Self.draft(claim, state: .failed, result: nil, error: error.description)
            await finish(claim, draft, job: nil, written: nil)
            return nil
        }
        var policy = policy
        let recordID = claim.recordID
        policy.beforeStep = { [weak self] _ in
            guard let self else { throw CancellationError() }
            try await self.checkClaim(recordID)
        }
        let id = await jobs.submit(
            specification, on: reader, rule: rule, trigger: .card, policy: policy,
            outbox: { [weak self] ended in await self?.outboxDraft(claim, ended) },
            completion: { [weak self] completion in await self?.jobEnded(claim, completion) })
        _ = await jobs.wait(for: id)
        return id
    }

    private func claimRecord(uid: [UInt8], reader: Reader) async -> FleetClaim? {
        var announcedWait = false
        while !Task.isCancelled {
            if !outboxOffered {
                await deliverOutbox()
                if outboxDepth == 0 { outboxOffered = true }
            }
            let sent = ContinuousClock.now
            do {
                let answer = try await queue.claim(
                    batch: settings.batch, host: settings.hostName, reader: reader.info.id, uid: uid, lease: lease)
                let answered = ContinuousClock.now
                metrics.fleetClaimDuration(answered - sent)
                switch answer {
                case .claimed(let claim) where answered + margin >= sent + lease:
                    // The answer came too late to trust the lease (a stalled database): nothing
                    // was written, so give the record back and ask again while the card is there.
                    await release(claim, reason: "the claim was answered after its lease may have run out")
                    guard (try? await reader.currentPresence()) == .present else { return nil }
                    continue
                case .claimed(let claim):
                    held[claim.recordID] = HeldClaim(claim: claim, deadline: sent + lease)
                    claims += 1
                    metrics.fleetClaim()
                    logger.info(
                        "fleet record claimed",
                        metadata: [
                            "record": "\(claim.recordID)", "ref": "\(claim.reference)", "attempt": "\(claim.attempt)",
                            "uid": "\(uid.hexString)", "reader": "\(reader.info.id)",
                        ])
                    return claim
                case .cardAlreadyBound(let record, let reference, let state):
                    logger.info(
                        "card already has a fleet record; not blank",
                        metadata: [
                            "uid": "\(uid.hexString)", "record": "\(record)", "ref": "\(reference)",
                            "state": "\(state)",
                        ])
                    return nil
                case .cardSpoiled(let record):
                    logger.warning(
                        "card is on the fleet's spoilage list; set it aside",
                        metadata: ["uid": "\(uid.hexString)", "record": "\(record.map(String.init) ?? "-")"])
                    return nil
                case .nothingPending:
                    if !announcedWait {
                        logger.info("no claimable fleet record; waiting with the card on the reader")
                        announcedWait = true
                    }
                }
            } catch {
                metrics.fleetClaimDuration(ContinuousClock.now - sent)
                logger.warning("fleet claim failed; trying again", metadata: ["error": "\(error)"])
            }
            await waitForWork()
            // Only a card still there gets a record.
            guard (try? await reader.currentPresence()) == .present else { return nil }
        }
        return nil
    }

    /// Throws when the claim on `recordID` may no longer hold.
    ///
    /// Before the first step of a claim that replaced an expired one, the store is told that
    /// writing begins (`FleetQueue.beginWriting`): until then a late completion of the earlier
    /// claim can still win (its card was written), and this card stays untouched.
    private func checkClaim(_ recordID: Int64) async throws {
        guard var entry = held[recordID] else { throw DaemonFlowError.fleetClaimLost(record: recordID) }
        if !entry.lost, ContinuousClock.now + margin >= entry.deadline {
            entry.lost = true
            held[recordID] = entry
            noteLeaseLoss(recordID, reason: "not renewed in time")
        }
        if entry.lost { throw DaemonFlowError.fleetClaimLost(record: recordID) }
        guard !entry.stepBegun else { return }
        guard entry.claim.replacesEarlierClaim else {
            entry.stepBegun = true
            held[recordID] = entry
            return
        }
        let sent = ContinuousClock.now
        let writing: Bool
        do {
            writing = try await queue.beginWriting(entry.claim, lease: lease)
        } catch {
            // Whether the store took it is unknown: the card stays untouched and the claim lapses.
            markLost(recordID, reason: "the store could not be told that writing begins: \(error)")
            throw DaemonFlowError.fleetClaimLost(record: recordID)
        }
        guard writing, var current = held[recordID], !current.lost else {
            markLost(recordID, reason: "the store no longer has this claim")
            throw DaemonFlowError.fleetClaimLost(record: recordID)
        }
        current.stepBegun = true
        current.deadline = max(current.deadline, sent + lease)
        held[recordID] = current
    }

    private func markLost(_ recordID: Int64, reason: String) {
        guard var entry = held[recordID], !entry.lost else { return }
        entry.lost = true
        held[recordID] = entry
        noteLeaseLoss(recordID, reason: reason)
    }

    /// Gives back a claim nothing was written for: the record is pending again and the card
    /// stays blank. A claim the store no longer has (claimed again meanwhile) needs nothing.
    private func release(_ claim: FleetClaim, reason: String) async {
        held[claim.recordID] = nil
        metrics.fleetClaimReleased()
        do {
            let released = try await queue.release(claim)
            logger.warning(
                "fleet claim released untouched",
                metadata: ["record": "\(claim.recordID)", "reason": "\(reason)", "released": "\(released)"])
        } catch {
            // The lease runs out on its own; the record is claimable again then.
            logger.warning(
                "fleet claim could not be released; its lease will run out",
                metadata: ["record": "\(claim.recordID)", "reason": "\(reason)", "error": "\(error)"])
        }
    }

    private func noteLeaseLoss(_ recordID: Int64, reason: String) {
        leaseLosses += 1
        metrics.fleetLeaseLost()
        logger.warning(
            "fleet claim lost; the flow stops before its next step",
            metadata: ["record": "\(recordID)", "reason": "\(reason)"])
    }

    /// The completion a job's end puts in the outbox with the job's record; nil for a job that
    /// ended before its first step (untouched: its claim is released instead).
    private func outboxDraft(_ claim: FleetClaim, _ completion: JobCompletion) -> FleetOutboxDraft? {
        if completion.state != .succeeded, held[claim.recordID]?.stepBegun == false { return nil }
        if completion.state == .succeeded {
            var values = completion.outcome?.values ?? [:]
            values["ref"] = claim.reference
            values["job"] = "\(completion.id)"
            let result = (try? JSONEncoder().encode(values)).map { Array($0) }
            return Self.draft(claim, state: .done, result: result, error: nil)
        }
        let reason = completion.error.map { String(describing: $0) } ?? completion.state.rawValue
        return Self.draft(claim, state: .failed, result: nil, error: reason)
    }

    private static func draft(
        _ claim: FleetClaim, state: FleetCompletionState, result: [UInt8]?, error: String?
    ) -> FleetOutboxDraft {
        FleetOutboxDraft(
            batch: claim.batch,
            completion: FleetCompletion(
                recordID: claim.recordID, token: claim.token, state: state, result: result, error: error))
    }

    private func jobEnded(_ claim: FleetClaim, _ completion: JobCompletion) async {
        guard let draft = completion.outboxDraft else {
            // Ended before its first step (the lease lapsed first, the card left): untouched.
            let reason = completion.error.map { String(describing: $0) } ?? completion.state.rawValue
            await release(claim, reason: "the job ended before its first step: \(reason)")
            return
        }
        await finish(claim, draft, job: completion.id, written: completion.outboxWrite)
    }

    /// Commits the completion to the outbox (unless the job's end did: `written`), forgets the
    /// claim, and delivers at once.
    private func finish(_ claim: FleetClaim, _ draft: FleetOutboxDraft, job: JobID?, written: FleetOutboxWrite?)
        async
    {
        held[claim.recordID] = nil
        var logged = false
        switch written {
        case .written(let entry):
            if let entry, entry.id > outboxReadThrough { fresh.append(entry) }
            logged = true
        case .failed:
            // The job center logged and counted the failure.
            break
        case nil:
            if let log {
                do {
                    let entry = try await log.enqueueNewFleetCompletion(draft, job: job)
                    if let entry, entry.id > outboxReadThrough { fresh.append(entry) }
                    logged = true
                } catch {
                    logger.error(
                        "fleet outbox write failed; the completion is kept in memory",
                        metadata: ["record": "\(claim.recordID)", "error": "\(error)"])
                    metrics.jobLogFailure()
                }
            }
        }
        if !logged {
            let completion = draft.completion
            unlogged.append(
                FleetOutboxEntry(
                    id: nextUnloggedID, recordID: completion.recordID, token: completion.token, batch: draft.batch,
                    state: completion.state, result: completion.result, error: completion.error, job: job,
                    attempts: 0, createdAt: Date()))
            nextUnloggedID -= 1
        }
        await deliverOutbox()
    }

    // MARK: Outbox

    /// Delivers every pending completion; stops at the first that finds the store unreachable.
    ///
    /// Returns once a delivery pass that began after this call has ended. Calls that overlap share
    /// passes: one pass runs at a time, so no completion is sent twice at once.
    public func deliverOutbox() async {
        deliveryRequests += 1
        let request = deliveryRequests
        while deliveredThrough < request {
            if let deliveryPass {
                await deliveryPass.value
            } else {
                let pass = Task { await self.runDeliveryPass() }
                deliveryPass = pass
                await pass.value
            }
        }
    }

    private func runDeliveryPass() async {
        // Every request made so far had its completion in the outbox already: this pass reads it.
        let covers = deliveryRequests
        await deliverPending()
        deliveredThrough = max(deliveredThrough, covers)
        deliveryPass = nil
    }

    /// The most entries one read of the outbox returns.
    public static let outboxReadLimit = 500

    private func deliverPending() async {
        if let log, !outboxInMemory {
            do {
                let snapshot = try await log.fleetOutboxSnapshot(limit: Self.outboxReadLimit)
                outboxReadThrough = max(outboxReadThrough, snapshot.lastID)
                let read = Set(snapshot.pending.map(\.id))
                // Entries up to the read's last id that it did not return were delivered before it.
                let kept = fresh.filter { $0.id > snapshot.lastID && !read.contains($0.id) }
                fresh = (snapshot.pending + kept).sorted { $0.id < $1.id }
                // A read that returned every pending entry leaves nothing in the log that `fresh`
                // lacks: from now on it is the outbox's pending part.
                if snapshot.pending.count < Self.outboxReadLimit { outboxInMemory = true }
            } catch {
                if Task.isCancelled { return }
                logger.error("fleet outbox unreadable", metadata: ["error": "\(error)"])
            }
        }
        let pending = fresh + unlogged
        // Marked in the log in one write after the pass: a crash before it only means the store
        // is asked again and answers alreadyApplied.
        var deliveries: [FleetOutboxDelivery] = []
        // Several waiting completions go in one call (one round trip, one transaction); one the
        // store refuses makes its call fail as a whole, and that call's entries go one by one.
        var next = pending.startIndex
        delivery: while next < pending.endIndex {
            let chunk = pending[next..<min(next + Self.completionsPerCall, pending.endIndex)]
            next = chunk.endIndex
            guard chunk.count > 1 else {
                if await deliverAlone(chunk[chunk.startIndex], into: &deliveries) { continue } else { break }
            }
            let sent = ContinuousClock.now
            do {
                let outcomes = try await queue.complete(chunk.map(\.completion))
                let elapsed = ContinuousClock.now - sent
                for (entry, outcome) in zip(chunk, outcomes) {
                    metrics.fleetCompletionDuration(elapsed)
                    settle(entry, outcome, into: &deliveries)
                }
            } catch {
                if error.isTransient {
                    if let log {
                        for entry in chunk where entry.id >= 0 {
                            try? await log.recordFleetDeliveryFailure(entry.id, error: error.description)
                        }
                    }
                    break
                }
                for entry in chunk {
                    guard await deliverAlone(entry, into: &deliveries) else { break delivery }
                }
            }
        }
        if let log, !deliveries.isEmpty {
            do {
                try await log.markFleetCompletionsDelivered(deliveries)
            } catch {
                // Delivered again later (after a restart's read): the store answers alreadyApplied.
                logger.error("fleet outbox update failed", metadata: ["error": "\(error)"])
            }
        }
        await refreshOutboxDepth()
    }

    /// Completions sent in one call at most.
    public static let completionsPerCall = 50

    /// Sends one completion; false when the store could not be reached (the pass stops).
    private func deliverAlone(_ entry: FleetOutboxEntry, into deliveries: inout [FleetOutboxDelivery]) async -> Bool {
        let sent = ContinuousClock.now
        do {
            let outcome = try await queue.complete(
                recordID: entry.recordID, token: entry.token, state: entry.state, result: entry.result,
                error: entry.error)
            metrics.fleetCompletionDuration(ContinuousClock.now - sent)
            settle(entry, outcome, into: &deliveries)
            return true
        } catch {
            if entry.id >= 0, let log {
                try? await log.recordFleetDeliveryFailure(entry.id, error: error.description)
            }
            if error.isTransient { return false }
            logger.error(
                "fleet store refused a completion; it stays in the outbox",
                metadata: ["record": "\(entry.recordID)", "error": "\(error)"])
            return true
        }
    }

    /// What follows the store's answer to one completion: it leaves the pending list, is counted
    /// by outcome, and is marked in the log with the pass.
    private func settle(
        _ entry: FleetOutboxEntry, _ outcome: FleetCompletionOutcome, into deliveries: inout [FleetOutboxDelivery]
    ) {
        if entry.id >= 0 {
            deliveries.append(FleetOutboxDelivery(id: entry.id, outcome: outcome))
            fresh.removeAll { $0.id == entry.id }
        } else {
            unlogged.removeAll { $0.id == entry.id }
        }
        switch outcome {
        case .applied:
            completions += 1
            metrics.fleetCompletion(entry.state)
            logger.info(
                "fleet record completed", metadata: ["record": "\(entry.recordID)", "state": "\(entry.state)"])
        case .alreadyApplied:
            logger.debug("fleet completion was already recorded", metadata: ["record": "\(entry.recordID)"])
        case .fenced:
            fencedWrites += 1
            metrics.fleetFencedWrite()
            logger.warning(
                "fleet completion fenced: another claim holds the record",
                metadata: ["record": "\(entry.recordID)", "state": "\(entry.state)"])
        }
    }

    private func refreshOutboxDepth() async {
        var depth = unlogged.count
        var oldest = unlogged.map(\.createdAt).min()
        if outboxInMemory || log == nil {
            depth += fresh.count
            oldest = (fresh.map(\.createdAt) + [oldest].compactMap { $0 }).min()
        } else if let log, let logged = try? await log.fleetOutboxDepth() {
            depth += logged
            if logged > 0, let loggedOldest = try? await log.oldestPendingFleetCompletion() {
                oldest = min(oldest ?? loggedOldest, loggedOldest)
            }
        }
        outboxDepth = depth
        metrics.fleetOutboxDepth(depth)
        metrics.fleetOutboxAge(seconds: oldest.map { max(0, Date().timeIntervalSince($0)) } ?? 0)
    }

    // MARK: Background

    private func prepareSchema() async {
        var pause = Duration.milliseconds(500)
        while !Task.isCancelled {
            do {
                try await queue.migrate()
                schemaReady = true
                logger.info("fleet store ready")
                return
            } catch {
                logger.warning(
                    "fleet store not ready; trying again", metadata: ["error": "\(error)", "pause": "\(pause)"])
            }
            try? await Task.sleep(for: pause)
            pause = min(pause * 2, .seconds(10))
        }
    }

    private var heartbeatInterval: Duration { max(Duration.milliseconds(500), lease / 3) }

    private func leaseLoop() async {
        while !Task.isCancelled {
            await renewLeases()
            try? await Task.sleep(for: heartbeatInterval)
        }
    }

    /// One hosts-table upsert per `reportInterval` at most, whatever the card rate: sent when the
    /// counts changed, or when a heartbeat is due so that `last_seen` stays fresh.
    private func reportLoop() async {
        var next = reportClock.now()
        while !Task.isCancelled {
            let due = lastReportTime.map { reportClock.now() - $0 >= heartbeatInterval } ?? true
            await sendReport(force: due)
            next += reportInterval
            do { try await reportClock.suspend(until: next) } catch { return }
        }
    }

    /// Sends the counts the hosts table does not have yet, now (cardd calls it at shutdown,
    /// after its last deliveries): a restart then finds this run's totals complete.
    ///
    /// Sent also when the caller is being cancelled (a daemon stopped by cancelling its task):
    /// the send runs in a task of its own, bounded by the store's operation timeout.
    public func flushReport() async {
        await Task { await self.sendReport(force: false) }.value
    }

    private func sendReport(force: Bool) async {
        guard schemaReady else { return }
        let counts = self.report
        guard force || counts != lastSentReport else { return }
        var report = counts
        report.readers = await readers()
        do {
            try await queue.report(report)
            lastSentReport = counts
            lastReportTime = reportClock.now()
        } catch {
            logger.debug("fleet host heartbeat failed", metadata: ["error": "\(error)"])
        }
    }

    private func renewLeases() async {
        for (recordID, entry) in held where !entry.lost {
            let sent = ContinuousClock.now
            do {
                let kept = try await queue.extendLease(entry.claim, by: lease)
                guard var current = held[recordID] else { continue }
                if kept {
                    current.deadline = sent + lease
                } else if !current.lost {
                    current.lost = true
                    noteLeaseLoss(recordID, reason: "the store no longer has this claim")
                }
                held[recordID] = current
            } catch {
                // The deadline stands; the step gate stops the flow once it is too close.
                logger.warning("fleet lease renewal failed", metadata: ["record": "\(recordID)", "error": "\(error)"])
            }
        }
    }

    /// Offers what a previous run left in the outbox once, then retries only while something
    /// waits (each completion is delivered as it is made; this loop is for the ones the store
    /// did not take), instead of reading the job log every 2 s for nothing.
    private func deliveryLoop() async {
        await deliverOutbox()
        while !Task.isCancelled {
            try? await Task.sleep(for: .seconds(2))
            if outboxDepth > 0 { await deliverOutbox() }
        }
    }

    private func wake() {
        wakeGeneration &+= 1
    }

    /// Returns when the store announced work, after the poll interval, or on cancellation.
    private func waitForWork() async {
        let generation = wakeGeneration
        let deadline = ContinuousClock.now + .seconds(settings.pollSeconds)
        while !Task.isCancelled, wakeGeneration == generation, ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(100))
        }
    }
}
