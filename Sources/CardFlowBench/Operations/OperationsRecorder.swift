import CardFlow

/// Runs a family's operations one after another and collects the rows of an
/// ``OperationsResult``: each operation is repeated (warm-up first, not recorded), timed with
/// the clock and its APDUs counted on the channel.
///
/// An operation that fails stops there: what was measured is kept and a skipped row carries
/// the error. A lost card is thrown. Task cancellation stops everything; what was measured is
/// kept (``interrupted`` says so).
struct OperationsRecorder {
    /// The channel every operation goes through, counting its APDUs.
    let channel: APDUCountingChannel
    let clock: any ElapsedClock
    let plan: OperationsPlan
    let progress: @Sendable (Double) -> Void
    /// How many rows (measured or skipped) the family expects, for progress.
    let plannedOperations: Int
    private(set) var operations: [OperationTiming] = []
    private(set) var skipped: [SkippedOperation] = []
    /// Set once the task was cancelled: nothing more is measured.
    private(set) var interrupted = false
    private var finishedOperations = 0

    init(
        channel: APDUCountingChannel, clock: any ElapsedClock, plan: OperationsPlan, plannedOperations: Int,
        progress: @escaping @Sendable (Double) -> Void
    ) {
        self.channel = channel
        self.clock = clock
        self.plan = plan
        self.plannedOperations = max(1, plannedOperations)
        self.progress = progress
    }

    /// Whether to stop: the task was cancelled.
    var shouldStop: Bool {
        mutating get {
            if Task.isCancelled { interrupted = true }
            return interrupted
        }
    }

    /// Repeats `body` (warm-up, then the plan's iterations), recording each measured run's time
    /// and APDUs; appends the row when at least one run was measured.
    ///
    /// - Parameters:
    ///   - name: the row's name, e.g. "read 32 B".
    ///   - commMode: the DESFire comm mode, where it applies.
    ///   - bytes: bytes read or written per run, where it applies.
    ///   - writes: whether the operation writes to the card.
    ///   - body: one run of the operation; gets the run's index (warm-up included).
    /// - Returns: whether every run succeeded (false after a failure or cancellation).
    /// - Throws: the error of a run that lost the card.
    @discardableResult
    mutating func measure(
        _ name: String, commMode: String? = nil, bytes: Int? = nil, writes: Bool = false,
        _ body: (Int) async throws -> Void
    ) async throws -> Bool {
        guard !shouldStop else { return false }
        var latencies = LatencyRecorder()
        var apdus = 0
        var succeeded = true
        let runs = plan.warmup + plan.iterations
        for run in 0..<runs {
            guard !shouldStop else {
                succeeded = false
                break
            }
            let apdusBefore = channel.count
            let start = clock.now()
            do {
                try await body(run)
            } catch {
                if error.meansCardLost { throw error }
                succeeded = false
                if error is CancellationError || shouldStop {
                    interrupted = true
                } else {
                    skipped.append(
                        SkippedOperation(
                            name: Self.rowName(name, commMode: commMode),
                            reason: "failed after \(latencies.count) measured runs: \(Self.describe(error))"))
                }
                break
            }
            let elapsed = clock.now() - start
            if run >= plan.warmup {
                latencies.record(elapsed)
                apdus += channel.count - apdusBefore
            }
            report(within: Double(run + 1) / Double(runs))
        }
        if latencies.count > 0 {
            operations.append(
                OperationTiming(
                    name: name, commMode: commMode, bytes: bytes,
                    apdusPerOperation: Double(apdus) / Double(latencies.count), statistics: latencies.statistics,
                    writes: writes))
        }
        finishOperation()
        return succeeded
    }

    /// Runs an unmeasured step that operations need (a selection, a key check, creating a file).
    /// When it fails, the operations in `dependents` are skipped with the step's error.
    ///
    /// - Parameters:
    ///   - step: what the step does, for the skipped rows' reason.
    ///   - dependents: the rows that cannot run without the step.
    ///   - body: the step.
    /// - Returns: the step's value, nil when it failed or the task was cancelled.
    /// - Throws: the error of a step that lost the card.
    mutating func prepare<Value>(
        _ step: String, dependents: [String], _ body: () async throws -> Value
    ) async throws -> Value? {
        guard !shouldStop else { return nil }
        do {
            return try await body()
        } catch {
            if error.meansCardLost { throw error }
            if error is CancellationError || shouldStop {
                interrupted = true
                return nil
            }
            skip(dependents, reason: "\(step) failed: \(Self.describe(error))")
            return nil
        }
    }

    /// Records rows that do not run, and why.
    ///
    /// - Parameters:
    ///   - names: the rows' names.
    ///   - reason: why they do not run.
    mutating func skip(_ names: [String], reason: String) {
        for name in names {
            skipped.append(SkippedOperation(name: name, reason: reason))
            finishOperation()
        }
    }

    /// Records a skipped row without counting it as a planned operation (a cleanup that failed).
    ///
    /// - Parameter row: the row.
    mutating func note(_ row: SkippedOperation) {
        skipped.append(row)
    }

    /// The result so far.
    ///
    /// - Parameter family: the card family measured.
    func result(family: BenchCardFamily) -> OperationsResult {
        OperationsResult(family: family.rawValue, operations: operations, skipped: skipped)
    }

    /// The name of a row with its comm mode, for skipped rows (which have no comm mode field).
    static func rowName(_ name: String, commMode: String?) -> String {
        commMode.map { "\(name) (\($0))" } ?? name
    }

    /// An error as text: the error's own description, with its type.
    static func describe(_ error: any Error) -> String {
        "\(String(describing: error)) (\(String(reflecting: type(of: error))))"
    }

    private mutating func finishOperation() {
        finishedOperations += 1
        report(within: 0)
    }

    private func report(within fraction: Double) {
        progress(min(1, max(0, (Double(finishedOperations) + fraction) / Double(plannedOperations))))
    }
}
