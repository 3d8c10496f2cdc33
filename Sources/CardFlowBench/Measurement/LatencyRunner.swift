import CardFlow
import CardFlowCCIDProtocol
import CardFlowHex

/// Sends one APDU over and over and times each round trip: a closed loop (the next command
/// leaves when the previous answer is in), so every sample is one exchange's service time.
/// There is no intended send schedule for a slow answer to delay, hence no coordinated
/// omission to correct; none is made, and results say so.
///
/// Each sample is `clock.now()` just before ``/CardFlow/CardChannel/transmit(_:)`` and just after
/// it returns: the card session, the driver and the reader, nothing of the runner's own work.
///
/// ```swift
/// let runner = LatencyRunner(channel: session, probe: BenchReaderProbe(reader: reader))
/// let outcome = await runner.run(command, plan: LatencyPlan(count: 2000)) { progress in … }
/// print(outcome.result.statistics.p99Ns)
/// ```
public struct LatencyRunner: Sendable {
    let channel: any CardChannel
    let probe: BenchReaderProbe?
    let clock: any ElapsedClock

    /// What a run measured, and whether it ended early.
    public struct Outcome: Sendable {
        public var result: LatencyResult
        /// The samples, for callers that combine runs (a sweep keeps each size's).
        public var recorder: LatencyRecorder
        /// Why the run ended before its plan (cancellation, failures), or nil.
        public var interruption: String?
    }

    /// - Parameters:
    ///   - channel: where the APDUs go (a ``/CardFlow/CardSession``).
    ///   - probe: the reader's probe, for the driver's event counters (nil: none).
    ///   - clock: the measuring clock: the monotonic clock, or the simulator's virtual clock.
    public init(channel: any CardChannel, probe: BenchReaderProbe? = nil, clock: any ElapsedClock = RealClock()) {
        self.channel = channel
        self.probe = probe
        self.clock = clock
    }

    /// The method line results carry.
    public static let method =
        "closed loop: each APDU is sent when the previous answer is in; a sample is one round trip (transmit to answer) on the measuring clock; warm-up round trips are not measured; no coordinated-omission correction applies (there is no send schedule) and none is made"

    /// Runs the plan. Cancellation (Ctrl-C) ends it early with what was measured.
    ///
    /// - Parameters:
    ///   - command: the APDU to send.
    ///   - plan: warm-up, count and durations.
    ///   - phase: the name progress reports carry.
    ///   - progress: called at every whole percent of the plan and every 64 samples.
    /// - Returns: the result, the samples and the reason for an early end.
    public func run(
        _ command: CommandAPDU, plan: LatencyPlan, phase: String = "latency",
        progress: @Sendable (BenchProgress) -> Void = { _ in }
    ) async -> Outcome {
        var recorder = LatencyRecorder()
        var outliers = LatencyOutliers()
        var lastAnswer: ResponseAPDU?
        var interruption: String?
        var consecutiveFailures = 0

        // Warm-up: also the reference for what counts as a slow sample.
        var warmupSamples: [Int64] = []
        for _ in 0..<plan.warmup {
            if Task.isCancelled {
                interruption = "cancelled during warm-up"
                break
            }
            let start = clock.now()
            do {
                lastAnswer = try await channel.transmit(command)
                warmupSamples.append(LatencyRecorder.nanoseconds(clock.now() - start))
                consecutiveFailures = 0
            } catch {
                interruption = Self.failed(error, during: "warm-up", count: &consecutiveFailures, plan, &outliers)
                if interruption != nil { break }
            }
        }
        let warmupMedian = warmupSamples.sorted().dropFirst(warmupSamples.count / 2).first
        let slowThreshold = warmupMedian.map { $0 * 3 }

        let startCounters = await probe?.counters()
        var lastCounters = startCounters
        let began = clock.now()
        var measured = 0
        var reported = -1
        if interruption == nil {
            while true {
                let elapsed = clock.now() - began
                let countReached = measured >= plan.count
                if countReached && elapsed >= plan.minimumDuration { break }
                if let maximum = plan.maximumDuration, elapsed >= maximum { break }
                if Task.isCancelled {
                    interruption = "cancelled"
                    break
                }
                let start = clock.now()
                let answer: ResponseAPDU
                do {
                    answer = try await channel.transmit(command)
                } catch {
                    interruption = Self.failed(error, during: nil, count: &consecutiveFailures, plan, &outliers)
                    if interruption != nil { break }
                    continue
                }
                let sample = clock.now() - start
                consecutiveFailures = 0
                lastAnswer = answer
                recorder.record(sample)
                let nanoseconds = LatencyRecorder.nanoseconds(sample)
                if let slowThreshold, nanoseconds > slowThreshold,
                    outliers.slowSamples.count < Self.slowSampleLimit
                        || nanoseconds > (outliers.slowSamples.map(\.valueNs).min() ?? 0)
                {
                    // Only slow samples pay for a look at the driver's counters: what happened
                    // since the previous slow sample.
                    var cause: String?
                    if let now = await probe?.counters(), let before = lastCounters {
                        cause = Self.describe(now.since(before))
                        lastCounters = now
                    }
                    // The slowest samples are kept (in the order they came).
                    if outliers.slowSamples.count == Self.slowSampleLimit,
                        let fastest = outliers.slowSamples.indices.min(by: {
                            outliers.slowSamples[$0].valueNs < outliers.slowSamples[$1].valueNs
                        })
                    {
                        outliers.slowSamples.remove(at: fastest)
                    }
                    outliers.slowSamples.append(SlowSample(index: measured, valueNs: nanoseconds, cause: cause))
                }
                measured += 1
                let fraction = Self.fraction(
                    measured: measured, count: plan.count, elapsed: clock.now() - began, minimum: plan.minimumDuration)
                let percent = Int(fraction * 100)
                // Every whole percent, and every 64 samples for runs whose plan is long.
                if percent != reported || measured % 64 == 0 {
                    reported = percent
                    progress(BenchProgress(phase: phase, fraction: fraction, samples: measured))
                }
            }
        }
        let duration = clock.now() - began
        if let startCounters, let end = await probe?.counters() {
            let during = end.since(startCounters)
            outliers.timeExtensions = during.timeExtensions
            outliers.discardedFrames = during.discardedFrames
            outliers.retransmissions = during.t1Recoveries
        }
        // Slow samples are named against the whole run's p99 once it is known.
        let p99 = recorder.value(at: 99)
        if recorder.count >= 100 {
            outliers.slowSamples.removeAll { $0.valueNs <= p99 * 2 }
        }
        let result = LatencyResult(
            command: command.encoded().hexString,
            statusWord: lastAnswer.map { [$0.sw1, $0.sw2].hexString } ?? "",
            responseLength: lastAnswer?.data.count ?? 0,
            warmupCount: warmupSamples.count, durationNs: LatencyRecorder.nanoseconds(duration),
            statistics: recorder.statistics, histogram: recorder.buckets(), percentileCurve: recorder.percentileCurve,
            outliers: outliers)
        return Outcome(result: result, recorder: recorder, interruption: interruption)
    }

    /// Counts a failed round trip; returns why the run must end (cancellation, too many
    /// failures in a row), or nil to go on.
    static func failed(
        _ error: any Error, during phase: String?, count consecutive: inout Int, _ plan: LatencyPlan,
        _ outliers: inout LatencyOutliers
    ) -> String? {
        if Task.isCancelled || error is CancellationError {
            return phase.map { "cancelled during \($0)" } ?? "cancelled"
        }
        consecutive += 1
        outliers.failures += 1
        outliers.firstFailure = outliers.firstFailure ?? "\(error)"
        return consecutive >= plan.failureLimit ? "\(consecutive) round trips in a row failed: \(error)" : nil
    }

    /// How many slow samples a result names.
    static let slowSampleLimit = 20

    static func fraction(measured: Int, count: Int, elapsed: Duration, minimum: Duration) -> Double {
        let byCount = Double(measured) / Double(count)
        let byTime = minimum > .zero ? elapsed / minimum : 1
        return min(byCount, byTime, 1)
    }

    static func describe(_ events: CCIDDriverCounters) -> String? {
        var parts: [String] = []
        if events.timeExtensions > 0 { parts.append("\(events.timeExtensions) time extension(s)") }
        if events.discardedFrames > 0 { parts.append("\(events.discardedFrames) discarded frame(s)") }
        if events.t1Recoveries > 0 { parts.append("\(events.t1Recoveries) T=1 re-send(s)") }
        if events.aborts > 0 { parts.append("\(events.aborts) abort(s)") }
        return parts.isEmpty ? nil : parts.joined(separator: ", ")
    }
}
