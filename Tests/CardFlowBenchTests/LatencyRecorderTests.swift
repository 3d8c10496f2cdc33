import CardFlowBench
import Testing

@Suite("LatencyRecorder")
struct LatencyRecorderTests {
    @Test("percentiles of 1…1000 µs are the HdrHistogram values within 0.1 %")
    func percentiles() {
        var recorder = LatencyRecorder()
        for micro in 1...1000 { recorder.record(.microseconds(micro)) }
        let statistics = recorder.statistics
        #expect(statistics.count == 1000)
        #expect(abs(Double(statistics.p50Ns) - 500_000) <= 500)
        #expect(abs(Double(statistics.p90Ns) - 900_000) <= 900)
        #expect(abs(Double(statistics.p99Ns) - 990_000) <= 990)
        #expect(abs(Double(statistics.minNs) - 1_000) <= 1)
        #expect(abs(Double(statistics.maxNs) - 1_000_000) <= 1_000)
        // 1000 samples summing to 500.5 ms: 1998 per second.
        #expect(abs(statistics.apdusPerSecond - 1000 / 0.5005) < 0.01)
        let bars = recorder.buckets(count: 10)
        #expect(bars.reduce(0) { $0 + $1.count } == 1000)
        #expect(bars.count >= 10 && bars.count <= 11)
        let curve = recorder.percentileCurve
        #expect(curve.last?.percentile == 100)
        #expect(zip(curve, curve.dropFirst()).allSatisfy { $0.valueNs <= $1.valueNs })
    }

    @Test("an empty recorder gives zeros, no bars and no curve")
    func empty() {
        let recorder = LatencyRecorder()
        #expect(recorder.statistics.count == 0)
        #expect(recorder.buckets().isEmpty)
        #expect(recorder.percentileCurve.isEmpty)
    }
}
