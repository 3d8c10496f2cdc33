import CardFlow
import CardFlowBenchSupport
import CardFlowCCID
import CardFlowCCIDProtocol

/// Session-layer overhead measured in pairs: batches through the bare driver and through a
/// `CardSession` (tracing off) alternate, round after round, and each round gives the ratio
/// session time ÷ driver time. With `comparing: .tracingOverUntraced` the pair is a traced
/// session (logger at `trace`, records discarded) and an untraced one: the cost of tracing. With
/// `.flowOverDriver` the second batch is a one-step flow run on the reader as an application runs
/// one (`reader.run(flow)`: the session's acquisition, power-on and close included, once per
/// batch). On a shared VM whose speed drifts by tens of percent from one
/// second to the next, two benchmarks run one after the other (package-benchmark's way) differ by
/// the drift; in a pair the two batches are a millisecond apart and see the same machine, so the
/// median of the per-round ratios resolves a few percent.
struct PairedSessionOverhead {
    /// What the pair's second batch adds to its first.
    enum Comparison {
        /// A session (tracing off) over the bare driver.
        case sessionOverDriver
        /// A traced session over an untraced one.
        case tracingOverUntraced
        /// A one-step flow (its session opened and closed per batch) over the bare driver.
        case flowOverDriver
        /// One step of a running flow over the bare driver: from the end of the flow's first
        /// step (which sends nothing) to the end of its second (the batch), so the step's hand-over
        /// and its own start and finish are counted, and the flow's start and end are not.
        case flowStepOverDriver
        /// The first rung under a session: each answer made a `ResponseAPDU` and checked as the
        /// session batch checks it, from the concrete `CCIDDriver` (no existential, no session).
        case typedResponseOverDriver
        /// The second rung: the same through the backend-neutral `any ReaderDriver` (the CCID
        /// plug's witness), as a session reaches its driver, still without the session.
        case readerDriverOverDriver
    }

    let exchange: Exchange
    let rounds: Int
    let batch: Int
    var comparing = Comparison.sessionOverDriver

    struct Result {
        let medianRatio: Double
        let ratioOfMinimums: Double
        let driverNanosecondsPerAPDU: Double
        let sessionNanosecondsPerAPDU: Double

        var json: [String: Any] {
            [
                "medianRatio": medianRatio, "ratioOfMinimums": ratioOfMinimums,
                "driverNanosecondsPerAPDU": driverNanosecondsPerAPDU,
                "sessionNanosecondsPerAPDU": sessionNanosecondsPerAPDU,
            ]
        }
    }

    func measure() async throws -> Result {
        // Separate simulated readers of the same kind, one for each side of the pair.
        let reader = await makeReader(
            level: .shortAPDU, exchange: exchange, logLevel: comparing == .tracingOverUntraced ? .trace : .info)
        let baseline: () async throws -> Double
        let measured: () async throws -> Double
        // Sessions this measurement opened, closed at its end (a flow opens its own).
        var sessions: [CardSession] = []
        switch comparing {
        case .sessionOverDriver:
            let driver = try await makePoweredDriver(level: .shortAPDU, exchange: exchange)
            let session = try await reader.connect()
            sessions = [session]
            baseline = { try await driverBatch(driver) }
            measured = { try await sessionBatch(session) }
        case .tracingOverUntraced:
            let traced = try await reader.connect()
            let plain = try await makeReader(level: .shortAPDU, exchange: exchange, logLevel: .info).connect()
            sessions = [traced, plain]
            baseline = { try await sessionBatch(plain) }
            measured = { try await sessionBatch(traced) }
        case .flowOverDriver:
            let driver = try await makePoweredDriver(level: .shortAPDU, exchange: exchange)
            baseline = { try await driverBatch(driver) }
            measured = { try await flowBatch(reader) }
        case .flowStepOverDriver:
            let driver = try await makePoweredDriver(level: .shortAPDU, exchange: exchange)
            baseline = { try await driverBatch(driver) }
            measured = { try await flowStepBatch(reader) }
        case .typedResponseOverDriver:
            let driver = try await makePoweredDriver(level: .shortAPDU, exchange: exchange)
            let other = try await makePoweredDriver(level: .shortAPDU, exchange: exchange)
            baseline = { try await driverBatch(driver) }
            measured = { try await typedResponseBatch(other) }
        case .readerDriverOverDriver:
            let driver = try await makePoweredDriver(level: .shortAPDU, exchange: exchange)
            let erased: any ReaderDriver = CCIDReaderDriver(
                driver: try await makePoweredDriver(level: .shortAPDU, exchange: exchange))
            baseline = { try await driverBatch(driver) }
            measured = { try await readerDriverBatch(erased) }
        }
        for _ in 0..<20 {
            _ = try await baseline()
            _ = try await measured()
        }
        var ratios: [Double] = []
        var driverTimes: [Double] = []
        var sessionTimes: [Double] = []
        for round in 0..<rounds {
            // Alternate which goes first, so neither always follows the other's cache state.
            let driverTime: Double
            let sessionTime: Double
            if round.isMultiple(of: 2) {
                driverTime = try await baseline()
                sessionTime = try await measured()
            } else {
                sessionTime = try await measured()
                driverTime = try await baseline()
            }
            ratios.append(sessionTime / driverTime)
            driverTimes.append(driverTime)
            sessionTimes.append(sessionTime)
        }
        for session in sessions { await session.close() }
        let perAPDU = 1e9 / Double(batch)
        return Result(
            medianRatio: median(ratios), ratioOfMinimums: sessionTimes.min()! / driverTimes.min()!,
            driverNanosecondsPerAPDU: median(driverTimes) * perAPDU,
            sessionNanosecondsPerAPDU: median(sessionTimes) * perAPDU)
    }

    /// Seconds for `batch` APDUs through the bare driver.
    private func driverBatch(_ driver: CCIDDriver) async throws -> Double {
        let command = exchange.command
        let start = ContinuousClock.now
        for _ in 0..<batch { check(try await driver.transmit(command.encoded()), exchange) }
        return seconds(start.duration(to: .now))
    }

    /// Seconds for `batch` APDUs through the bare driver, each answer a checked `ResponseAPDU`.
    private func typedResponseBatch(_ driver: CCIDDriver) async throws -> Double {
        try await checkedResponseBatch { try await driver.transmit($0) }
    }

    /// Seconds for `batch` APDUs through `any ReaderDriver`, each answer a checked `ResponseAPDU`.
    private func readerDriverBatch(_ driver: any ReaderDriver) async throws -> Double {
        try await checkedResponseBatch { try await driver.transmit($0) }
    }

    /// Seconds for `batch` APDUs sent with `transmit`, each answer made a `ResponseAPDU` and
    /// checked as ``sessionBatch(_:)`` checks it. Always inlined, so `transmit` is too: the rungs
    /// measure their call, not a closure's.
    @inline(__always)
    private func checkedResponseBatch(_ transmit: (consuming [UInt8]) async throws -> [UInt8]) async throws -> Double {
        let command = exchange.command
        let start = ContinuousClock.now
        for _ in 0..<batch {
            let response = try ResponseAPDU(answer: try await transmit(command.encoded()), to: command)
            precondition(response.statusWord == .success && response.data.count == exchange.responseDataLength)
        }
        return seconds(start.duration(to: .now))
    }

    /// Seconds for `batch` APDUs through the session.
    private func sessionBatch(_ session: CardSession) async throws -> Double {
        let command = exchange.command
        let start = ContinuousClock.now
        for _ in 0..<batch {
            let response = try await session.transmit(command)
            precondition(response.statusWord == .success && response.data.count == exchange.responseDataLength)
        }
        return seconds(start.duration(to: .now))
    }

    /// Seconds for `batch` APDUs in one flow step, the flow run from its start to its value.
    private func flowBatch(_ reader: Reader) async throws -> Double {
        let command = exchange.command
        let exchange = exchange
        let batch = batch
        let start = ContinuousClock.now
        let flow = Flow.start("batch") { session in
            for _ in 0..<batch {
                let response = try await session.transmit(command)
                precondition(response.statusWord == .success && response.data.count == exchange.responseDataLength)
            }
            return batch
        }
        _ = try await reader.run(flow).value
        return seconds(start.duration(to: .now))
    }

    /// Seconds for `batch` APDUs in the second step of a running flow, from the end of its first
    /// step (which sends nothing and passes its end time on) to the end of the second.
    private func flowStepBatch(_ reader: Reader) async throws -> Double {
        let command = exchange.command
        let exchange = exchange
        let batch = batch
        let flow = Flow.start("mark") { _ in ContinuousClock.now }
            .then("batch") { firstStepEnded, session in
                for _ in 0..<batch {
                    let response = try await session.transmit(command)
                    precondition(response.statusWord == .success && response.data.count == exchange.responseDataLength)
                }
                return firstStepEnded.duration(to: .now)
            }
        return seconds(try await reader.run(flow).value)
    }

    private func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        return sorted[sorted.count / 2]
    }
}
