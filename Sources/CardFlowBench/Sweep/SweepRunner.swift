import CardFlow

/// Measures round-trip time as command data and answer data grow, and fits the cost model
/// `time = fixed + perCommandByte × command bytes + perResponseByte × answer bytes` through the
/// medians of the short APDUs (least squares on the APDU lengths on the wire). The fixed cost
/// reported is the line's value for a 5-byte command and a 2-byte answer: an APDU with no data
/// either way. Extended sizes are measured and shown, not fitted (see ``fit(_:)``).
///
/// ```swift
/// let probes = try await SweepProbe.detect(on: session, fileID: nil, allowWrite: false, data: SweepData(seed: 1))
/// let outcome = await SweepRunner(channel: session, clock: clock).run(probes: probes.probes, plan: SweepPlan(),
///                                                                      maximumCommandLength: 261)
/// print(outcome.result.fit?.perResponseByteNs ?? 0)
/// ```
public struct SweepRunner: Sendable {
    let latency: LatencyRunner

    /// What a sweep measured, and whether it ended early.
    public struct Outcome: Sendable {
        public var result: SweepResult
        public var interruption: String?
        /// Sizes left out, and why (the card refused them or answered the wrong length).
        public var notes: [String]
    }

    /// - Parameters:
    ///   - channel: where the APDUs go.
    ///   - probe: the reader's probe, for driver counters.
    ///   - clock: the measuring clock.
    public init(channel: any CardChannel, probe: BenchReaderProbe? = nil, clock: any ElapsedClock = RealClock()) {
        latency = LatencyRunner(channel: channel, probe: probe, clock: clock)
    }

    /// Runs every probe over the plan's sizes.
    ///
    /// - Parameters:
    ///   - probes: one per direction (command, response).
    ///   - plan: sizes and samples.
    ///   - maximumCommandLength: the longest command APDU the reader carries (extended sizes
    ///     beyond it are left out).
    ///   - progress: called after each size.
    /// - Returns: the points, the fit and the notes.
    public func run(
        probes: [SweepProbe], plan: SweepPlan, maximumCommandLength: Int,
        progress: @Sendable (BenchProgress) -> Void = { _ in }
    ) async -> Outcome {
        var points: [SweepPoint] = []
        var notes: [String] = []
        var interruption: String?
        let extendedPossible = maximumCommandLength > 261
        let work = probes.map { probe in
            (
                probe,
                plan.sizes(
                    maximumShort: probe.maximumShort, maximumExtended: extendedPossible ? probe.maximumExtended : 0)
            )
        }
        let total = max(1, work.reduce(0) { $0 + $1.1.count })
        var done = 0
        directions: for (probe, sizes) in work {
            for preparation in probe.preparation {
                do {
                    let answer = try await latency.channel.transmit(preparation)
                    guard answer.sw1 == 0x90 && answer.sw2 == 0x00 else {
                        notes.append(
                            "\(probe.kind.rawValue): \(preparation.encoded().hexString) answered \([answer.sw1, answer.sw2].hexString); direction \(probe.direction.rawValue) skipped"
                        )
                        done += sizes.count
                        continue directions
                    }
                } catch {
                    if Task.isCancelled {
                        interruption = "cancelled"
                        break directions
                    }
                    notes.append("\(probe.kind.rawValue): preparation failed: \(error)")
                    done += sizes.count
                    continue directions
                }
            }
            for size in sizes {
                if Task.isCancelled {
                    interruption = "cancelled"
                    break directions
                }
                done += 1
                let command: CommandAPDU
                do {
                    command = try probe.command(size: size)
                } catch {
                    notes.append("\(probe.direction.rawValue) \(size) B: \(error)")
                    continue
                }
                let wire = command.encoded()
                if wire.count > maximumCommandLength {
                    notes.append(
                        "\(probe.direction.rawValue) \(size) B: \(wire.count)-byte command exceeds the reader's \(maximumCommandLength)"
                    )
                    continue
                }
                // One exchange first: a card that refuses the size or answers another length
                // would make the point meaningless.
                do {
                    let answer = try await latency.channel.transmit(command)
                    guard probe.accepts(answer, size: size) else {
                        notes.append(
                            "\(probe.direction.rawValue) \(size) B: answered \(answer.data.count) B \([answer.sw1, answer.sw2].hexString); left out"
                        )
                        continue
                    }
                } catch {
                    if Task.isCancelled {
                        interruption = "cancelled"
                        break directions
                    }
                    notes.append("\(probe.direction.rawValue) \(size) B: \(error); left out")
                    continue
                }
                let outcome = await latency.run(
                    command,
                    plan: LatencyPlan(
                        warmup: plan.warmupPerPoint, count: plan.samplesPerPoint, minimumDuration: .zero,
                        failureLimit: 3),
                    phase: "sweep \(probe.direction.rawValue) \(size) B")
                let samples = outcome.recorder
                if samples.count > 0 {
                    let responseData = probe.direction == .response ? size : outcome.result.responseLength
                    points.append(
                        SweepPoint(
                            direction: probe.direction,
                            commandDataLength: command.data.count, responseDataLength: responseData,
                            commandLength: wire.count, responseLength: responseData + 2,
                            extended: command.requiresExtendedLength, samples: samples.count,
                            medianNs: samples.value(at: 50), p10Ns: samples.value(at: 10), p90Ns: samples.value(at: 90),
                            minNs: samples.statistics.minNs))
                }
                progress(
                    BenchProgress(
                        phase: "sweep \(probe.direction.rawValue) \(size) B", fraction: Double(done) / Double(total),
                        samples: points.count))
                if let reason = outcome.interruption {
                    interruption = reason
                    break directions
                }
            }
        }
        let description = probes.map { "\($0.direction.rawValue): \(Self.describe($0))" }.joined(separator: "; ")
        let result = SweepResult(
            probe: Array(Set(probes.map(\.kind.rawValue))).sorted().joined(separator: "+"),
            probeDescription: description, samplesPerPoint: plan.samplesPerPoint, points: points,
            fit: Self.fit(points))
        return Outcome(result: result, interruption: interruption, notes: notes)
    }

    /// The least-squares line through the short points' medians, over the directions measured
    /// (a direction not measured gets a per-byte cost of 0). Extended points are left out of
    /// the fit: a reader carries them in several USB messages (or blocks), a step the line does
    /// not model; charts show how far above the line they sit.
    ///
    /// - Parameter points: the sweep's points.
    /// - Returns: the fit, or nil with too few distinct sizes.
    public static func fit(_ points: [SweepPoint]) -> SweepFit? {
        let points = points.filter { !$0.extended }
        let hasCommand = Set(points.map(\.commandLength)).count > 1
        let hasResponse = Set(points.map(\.responseLength)).count > 1
        guard hasCommand || hasResponse else { return nil }
        let rows = points.map { point -> [Double] in
            var row: [Double] = []
            if hasCommand { row.append(Double(point.commandLength)) }
            if hasResponse { row.append(Double(point.responseLength)) }
            return row
        }
        guard let line = LeastSquares.fit(rows: rows, values: points.map { Double($0.medianNs) }) else { return nil }
        let perCommand = hasCommand ? line.coefficients[1] : 0
        let perResponse = hasResponse ? line.coefficients[hasCommand ? 2 : 1] : 0
        return SweepFit(
            fixedNs: line.coefficients[0] + 5 * perCommand + 2 * perResponse, perCommandByteNs: perCommand,
            perResponseByteNs: perResponse, rSquared: line.rSquared, maxResidualNs: line.maxResidual)
    }

    static func describe(_ probe: SweepProbe) -> String {
        switch probe.kind {
        case .apduTest:
            probe.direction == .command
                ? "APDU test card SINK 80 30 00 00 Lc data (answer 90 00)"
                : "APDU test card PATTERN 80 20 00 00 Le (Le bytes back)"
        case .readBinary: "READ BINARY 00 B0 00 00 Le of the selected EF"
        case .updateBinary: "UPDATE BINARY 00 D6 00 00 Lc data of the selected EF (writes)"
        case .selectName: "SELECT by an unknown DF name 00 A4 04 0C Lc name (the card answers an error)"
        }
    }
}
