import ArgumentParser
import CardFlow
import CardFlowBench

/// `cardctl bench latency`: N round trips of one APDU, percentiles and a histogram.
struct BenchLatencyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "latency",
        abstract: "Round-trip time of one APDU: min, p50, p90, p99, p99.9, max and a histogram.",
        discussion: """
            The APDU is sent over and over, each when the previous answer is in (closed loop): a warm-up \
            that is not measured, then samples until both --count and --min-duration are reached. Only the \
            exchange is timed (just before the command leaves to just after the answer is in). Slow samples \
            are named with what the CCID driver saw during them (time extensions, discarded frames, T=1 \
            re-sends) when the reader is on CardFlow's own driver.
            """)

    @OptionGroup(title: "Global Options") var global: GlobalOptions
    @OptionGroup(title: "Bench Options") var bench: BenchOptions
    @OptionGroup(title: "Latency Options") var latency: LatencyOptions

    func run() async throws {
        let command = try latency.command()
        let plan = latency.plan
        let harness = BenchHarness(global: global, bench: bench)
        try await harness.measureEachReader(.latency) { context in
            let outcome = await LatencyRunner(channel: context.session, probe: context.probe, clock: context.clock)
                .run(command, plan: plan, phase: "latency \(context.identity.id)") { harness.progress.show($0) }
            var run = context.run(.latency, method: LatencyRunner.method)
            run.latency = outcome.result
            run.interrupted = outcome.interruption != nil
            run.interruption = outcome.interruption
            return run
        }
    }
}
