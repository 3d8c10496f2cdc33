import CardFlow
import CardFlowBenchSupport
import CardFlowCCID
import CardFlowCCIDProtocol

/// Session-layer overhead measured in pairs: batches through the bare driver and through a
/// `CardSession` (tracing off) alternate, round after round, and each round gives the ratio
/// session time ÷ driver time. With `comparing: .tracingOverUntraced` the pair is a traced
/// session (logger at `trace`, records discarded) and an untraced one: the cost of tracing. On a shared VM whose speed drifts by tens of percent from one
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
        let session = try await reader.connect()
        let baseline: () async throws -> Double
        var untraced: CardSession?
        switch comparing {
        case .sessionOverDriver:
            let driver = try await makePoweredDriver(level: .shortAPDU, exchange: exchange)
            baseline = { try await driverBatch(driver) }
        case .tracingOverUntraced:
            let plain = try await makeReader(level: .shortAPDU, exchange: exchange, logLevel: .info).connect()
            untraced = plain
            baseline = { try await sessionBatch(plain) }
        }
        for _ in 0..<20 {
            _ = try await baseline()
            _ = try await sessionBatch(session)
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
                sessionTime = try await sessionBatch(session)
            } else {
                sessionTime = try await sessionBatch(session)
                driverTime = try await baseline()
            }
            ratios.append(sessionTime / driverTime)
            driverTimes.append(driverTime)
            sessionTimes.append(sessionTime)
        }
        await session.close()
        await untraced?.close()
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

    private func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        return sorted[sorted.count / 2]
    }
}
