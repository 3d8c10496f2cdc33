import CardFlow
import CardFlowBench
import CardFlowCCIDProtocol
import CardFlowSimulatorReaders
import Logging
import Testing

/// The latency runner against readers and cards that misbehave: it must end with what it
/// measured and a reason, never hang or crash.
@Suite("LatencyRunner")
struct LatencyRunnerTests {
    static let select = try! CommandAPDU(hex: "00A4040007A0000002471001")

    static func measure(
        _ selector: String, plan: LatencyPlan, driver: CCIDDriverConfiguration = CCIDDriverConfiguration()
    ) async throws -> LatencyRunner.Outcome {
        var options = ReaderSourceOptions(logger: Logger(label: "bench-test"))
        options.backendSettings[CCIDDriverConfiguration.self] = driver
        let opened = try await SimulatorReaderSource().open(selector, options: options)
        let reader = opened.readers[0]
        let clock = opened.clock ?? RealClock()
        let outcome = try await reader.withSession { session in
            await LatencyRunner(channel: session, probe: BenchReaderProbe(reader: reader), clock: clock)
                .run(Self.select, plan: plan)
        }
        try await opened.close()
        return outcome
    }

    @Test("virtual time: every sample is the modelled time, so every percentile is the same")
    func modelledTime() async throws {
        let outcome = try await Self.measure(
            "sim:iso7816,usb=1,firmware=0.25,clock=virtual",
            plan: LatencyPlan(warmup: 3, count: 200, minimumDuration: .zero))
        let statistics = outcome.result.statistics
        #expect(statistics.count == 200)
        // 1 ms + 0.25 ms, within HdrHistogram's 0.1 %.
        #expect(abs(Double(statistics.p50Ns) - 1_250_000) <= 1_250)
        #expect(statistics.minNs == statistics.maxNs || abs(Double(statistics.maxNs - statistics.minNs)) <= 1_250)
        #expect(outcome.interruption == nil)
        #expect(outcome.result.outliers.timeExtensions == 0)
    }

    @Test("a card lifted mid-run ends the run with the samples before it and the reason")
    func cardLifted() async throws {
        let outcome = try await Self.measure(
            "sim:iso7816,lift-after=40", plan: LatencyPlan(warmup: 5, count: 1000, minimumDuration: .zero))
        #expect(outcome.result.statistics.count >= 30 && outcome.result.statistics.count < 40)
        let reason = try #require(outcome.interruption)
        #expect(reason.contains("in a row failed"), "\(reason)")
        #expect(outcome.result.outliers.failures >= 1)
        #expect(outcome.result.outliers.firstFailure != nil)
    }

    @Test("a chaotic reader: the run ends (complete or with a reason), failures are counted, events named")
    func chaoticReader() async throws {
        // Short driver timeouts: a stalled reader costs 150 ms, not the default 3 s.
        var driver = CCIDDriverConfiguration()
        driver.readTimeout = .milliseconds(150)
        driver.exchangeTimeLimit = .seconds(2)
        driver.abortTimeout = .milliseconds(200)
        for seed in 1...3 {
            let outcome = try await Self.measure(
                "sim:iso7816,reader-chaos=\(seed),chaos-rate=0.1",
                plan: LatencyPlan(warmup: 2, count: 100, minimumDuration: .zero, maximumDuration: .seconds(30)),
                driver: driver)
            let result = outcome.result
            #expect(result.statistics.count + result.outliers.failures >= 1)
            #expect(outcome.interruption != nil || result.statistics.count >= 100)
            #expect(result.outliers.timeExtensions != nil, "a CCID reader reports its driver's counters")
        }
    }

    @Test("cancellation ends the run early with what was measured")
    func cancellation() async throws {
        let opened = try await SimulatorReaderSource().open(
            "sim:iso7816,latency=1", options: ReaderSourceOptions(logger: Logger(label: "bench-test")))
        let reader = opened.readers[0]
        let (started, signal) = AsyncStream.makeStream(of: Void.self)
        let task = Task {
            try await reader.withSession { session in
                await LatencyRunner(channel: session).run(
                    Self.select, plan: LatencyPlan(warmup: 0, count: 1_000_000, minimumDuration: .zero)
                ) { progress in
                    if progress.samples >= 10 { signal.yield() }
                }
            }
        }
        // Cancel once samples are in (however slow the machine is).
        for await _ in started { break }
        task.cancel()
        let outcome = try await task.value
        #expect(outcome.interruption == "cancelled")
        #expect(outcome.result.statistics.count >= 10)
        try await opened.close()
    }
}
