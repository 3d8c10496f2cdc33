extension BenchRun {
    /// Why this run measured nothing, or nil when it has at least one sample: no latency round
    /// trip, no sweep size, no operation timed (every one skipped). A measurement that measured
    /// nothing is a failure, not a result: `cardctl bench` records it as ``failure`` and exits 1.
    /// Comparisons are judged by their sides' own runs.
    public var measuredNothingReason: String? {
        switch kind {
        case .latency:
            guard let latency else { return "no latency result" }
            guard latency.statistics.count == 0 else { return nil }
            let failures = latency.outliers.failures
            guard failures > 0 else { return "0 round trips measured" }
            return "0 round trips measured; \(failures) failed"
                + (latency.outliers.firstFailure.map { ", the first with: \($0)" } ?? "")
        case .sweep:
            guard let sweep else { return "no sweep result" }
            guard !sweep.points.contains(where: { $0.samples > 0 }) else { return nil }
            return "no command or answer size measured"
        case .operations:
            guard let operations else { return "no operations result" }
            guard operations.operations.isEmpty else { return nil }
            guard !operations.skipped.isEmpty else { return "no operation timed" }
            return "no operation timed; skipped: "
                + operations.skipped.map { "\($0.name) (\($0.reason))" }.joined(separator: "; ")
        case .comparison:
            return nil
        }
    }
}
