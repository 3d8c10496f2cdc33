extension BenchTextRenderer {
    /// Each side's figures or failure, then the ratios in words.
    static func comparisonLines(_ comparison: ComparisonResult) -> [String] {
        var lines = ["comparison:"]
        var table = TextTable(
            headers: ["side", "reader", "p50", "p99", "APDU/s", "count"],
            alignments: [.left, .left, .right, .right, .right, .right])
        var failures: [String] = []
        for side in comparison.sides {
            let reader = "\(side.reader.name) (\(side.reader.backend))"
            if let statistics = side.latency?.statistics {
                table.append([
                    sideName(side.label), reader, BenchNumberFormat.duration(statistics.p50Ns),
                    BenchNumberFormat.duration(statistics.p99Ns), BenchNumberFormat.rate(statistics.apdusPerSecond),
                    String(statistics.count),
                ])
            } else {
                table.append([sideName(side.label), reader, "–", "–", "–", "–"])
                failures.append("  \(sideName(side.label)) failed: \(side.failure ?? "no measurement")")
            }
        }
        if comparison.sides.isEmpty { lines.append("  no sides") } else { lines += table.lines() }
        lines += failures
        lines += ratioLines(comparison)
        return lines
    }

    /// The ratios in words, the faster side first ("CardFlow is 1.42× as fast (throughput) as
    /// pcscd").
    static func ratioLines(_ comparison: ComparisonResult) -> [String] {
        guard comparison.sides.count == 2 else { return [] }
        let first = sideName(comparison.sides[0].label)
        let second = sideName(comparison.sides[1].label)
        var lines: [String] = []
        if let ratio = comparison.throughputRatio, ratio.isFinite, ratio > 0 {
            let (faster, slower, factor) = ratio >= 1 ? (first, second, ratio) : (second, first, 1 / ratio)
            lines.append(
                "\(faster) is \(BenchNumberFormat.ratio(factor)) as fast (throughput) as \(slower)"
                    + " (\(first)/\(second) APDU/s: \(BenchNumberFormat.ratio(ratio)))")
        }
        if let ratio = comparison.p50Ratio, ratio.isFinite, ratio > 0 {
            let (slower, faster, factor) = ratio >= 1 ? (second, first, ratio) : (first, second, 1 / ratio)
            lines.append(
                "\(slower)'s median round trip takes \(BenchNumberFormat.ratio(factor)) as long as \(faster)'s"
                    + " (\(second)/\(first) p50: \(BenchNumberFormat.ratio(ratio)))")
        }
        if lines.isEmpty { lines.append("no ratio: a side has no measurement") }
        return lines
    }
}
