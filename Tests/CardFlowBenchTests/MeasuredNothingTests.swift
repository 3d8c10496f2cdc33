import Testing

@testable import CardFlowBench

/// Which runs measured nothing (issue 35, item 14), for each kind `cardctl bench` runs.
@Suite("Bench runs that measured nothing")
struct MeasuredNothingTests {
    @Test("runs with samples have no reason; empty latency, sweep and operations runs say why")
    func reasons() {
        #expect(BenchReportFixtures.latencyRun().measuredNothingReason == nil)
        #expect(BenchReportFixtures.sweepRun().measuredNothingReason == nil)
        #expect(BenchReportFixtures.operationsRun().measuredNothingReason == nil)
        #expect(BenchReportFixtures.comparisonRun().measuredNothingReason == nil)

        var latency = BenchReportFixtures.emptyLatencyRun()
        latency.latency?.outliers.failures = 10
        latency.latency?.outliers.firstFailure = "card lost"
        #expect(latency.measuredNothingReason == "0 round trips measured; 10 failed, the first with: card lost")

        var sweep = BenchReportFixtures.sweepRun()
        sweep.sweep?.points = []
        #expect(sweep.measuredNothingReason == "no command or answer size measured")
        sweep.sweep = nil
        #expect(sweep.measuredNothingReason == "no sweep result")

        var operations = BenchReportFixtures.operationsRun()
        operations.operations = OperationsResult(
            family: "desfire", operations: [], skipped: [SkippedOperation(name: "write", reason: "no --allow-write")])
        #expect(operations.measuredNothingReason == "no operation timed; skipped: write (no --allow-write)")
    }
}
