extension BenchTextRenderer {
    /// A latency result: what was sent, the statistics, the histogram and the outliers.
    static func latencyLines(_ latency: LatencyResult, width: Int) -> [String] {
        let statistics = latency.statistics
        var lines: [String] = []
        let answer = latency.responseLength == 1 ? "1 byte" : "\(latency.responseLength) bytes"
        lines.append(
            "latency: \(statistics.count) round trips of \(latency.command.isEmpty ? "(no command)" : latency.command)"
                + " → \(latency.statusWord), \(answer) of data")
        lines.append(
            "  \(latency.warmupCount) warm-up, run took \(BenchNumberFormat.duration(latency.durationNs)), "
                + "\(BenchNumberFormat.rate(statistics.apdusPerSecond)) APDU/s")
        if statistics.count > 0 {
            lines += statisticsTable(statistics).lines()
        }
        if latency.histogram.contains(where: { $0.count > 0 }) {
            lines.append("histogram (round trips per bucket):")
            lines += TextHistogram.lines(latency.histogram, width: width)
        } else {
            lines.append("histogram: no samples")
        }
        lines += outlierLines(latency.outliers)
        return lines
    }

    /// One header row of statistic names and one row of times.
    static func statisticsTable(_ statistics: LatencyStatistics) -> TextTable {
        var table = TextTable(
            headers: ["count", "min", "p50", "p90", "p99", "p99.9", "max", "mean", "stddev"],
            alignments: Array(repeating: .right, count: 9))
        let times = [
            statistics.minNs, statistics.p50Ns, statistics.p90Ns, statistics.p99Ns, statistics.p999Ns,
            statistics.maxNs, statistics.meanNs, statistics.standardDeviationNs,
        ]
        table.append([String(statistics.count)] + times.map(BenchNumberFormat.duration))
        return table
    }

    /// Driver events, slow samples and failures.
    static func outlierLines(_ outliers: LatencyOutliers) -> [String] {
        var lines: [String] = []
        let counted: [(Int?, String, String)] = [
            (outliers.timeExtensions, "time extension", "time extensions"),
            (outliers.discardedFrames, "discarded frame", "discarded frames"),
            (outliers.retransmissions, "retransmission", "retransmissions"),
        ]
        let seen = counted.compactMap { count, one, many in count.map { $0 == 1 ? "1 \(one)" : "\($0) \(many)" } }
        let unseen = counted.filter { $0.0 == nil }.map(\.2)
        var driver = "outliers: " + (seen.isEmpty ? "" : seen.joined(separator: ", "))
        if !unseen.isEmpty {
            driver += (seen.isEmpty ? "" : "; ") + unseen.joined(separator: ", ") + " not visible on this backend"
        }
        lines.append(driver)
        if outliers.slowSamples.isEmpty {
            lines.append("  slow samples (above 2 × p99): none")
        } else {
            lines.append("  slow samples (above 2 × p99):")
            for sample in outliers.slowSamples {
                let cause = sample.cause.map { " (\($0))" } ?? ""
                lines.append("    #\(sample.index): \(BenchNumberFormat.duration(sample.valueNs))\(cause)")
            }
        }
        if outliers.failures == 0 {
            lines.append("  failures: none")
        } else {
            let first = outliers.firstFailure.map { ", first: \($0)" } ?? ""
            lines.append("  failures: \(outliers.failures)\(first)")
        }
        return lines
    }
}
