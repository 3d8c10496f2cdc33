/// A latency histogram as horizontal bars of block characters, one line per bucket: the
/// bucket's range, a bar proportional to its count (eighths of a block for the remainder, and
/// at least a sliver for any non-empty bucket) and the count.
enum TextHistogram {
    private static let partialBlocks: [Character] = ["▏", "▎", "▍", "▌", "▋", "▊", "▉"]

    /// The histogram's lines.
    ///
    /// - Parameters:
    ///   - buckets: the bars, in order.
    ///   - width: the width of the terminal; the bars take what the labels leave (at least 10).
    ///   - maximumLines: more buckets than this are merged, neighbours together, to fit.
    ///   - indent: what each line starts with.
    /// - Returns: one line per (merged) bucket; none for no buckets.
    static func lines(
        _ buckets: [HistogramBucket], width: Int, maximumLines: Int = 40, indent: String = "  "
    ) -> [String] {
        let merged = merge(buckets, into: max(1, maximumLines))
        guard let first = merged.first, let last = merged.last else { return [] }
        let unit = BenchNumberFormat.unit(for: Double(max(abs(last.upperNs), abs(first.lowerNs))))
        let narrowest = merged.map { Double($0.upperNs) - Double($0.lowerNs) }.filter { $0 > 0 }.min() ?? 0
        let decimals = BenchNumberFormat.decimals(showing: narrowest / unit.nanoseconds)
        let labels = merged.map { bucket in
            BenchNumberFormat.duration(Double(bucket.lowerNs), in: unit, decimals: decimals) + "–"
                + BenchNumberFormat.duration(Double(bucket.upperNs), in: unit, decimals: decimals) + " " + unit.symbol
        }
        let counts = merged.map { String($0.count) }
        let labelWidth = labels.map(\.count).max() ?? 0
        let countWidth = counts.map(\.count).max() ?? 0
        let barWidth = max(10, width - indent.count - labelWidth - countWidth - 4)
        let largest = merged.map(\.count).max() ?? 0
        var lines: [String] = []
        for (index, bucket) in merged.enumerated() {
            let bar = self.bar(count: bucket.count, largest: largest, width: barWidth)
            let label = String(repeating: " ", count: labelWidth - labels[index].count) + labels[index]
            let padding = String(repeating: " ", count: barWidth - bar.count + countWidth - counts[index].count)
            lines.append(indent + label + " │" + bar + padding + " " + counts[index])
        }
        return lines
    }

    /// A bar of `count / largest × width` blocks, in eighths.
    ///
    /// - Parameters:
    ///   - count: this bar's count.
    ///   - largest: the largest count (a full-width bar).
    ///   - width: the full width in characters.
    /// - Returns: the bar, at most `width` characters; "▏" for a count too small to show, ""
    ///   for zero.
    static func bar(count: Int, largest: Int, width: Int) -> String {
        guard count > 0, largest > 0, width > 0 else { return "" }
        let eighths = Int((Double(count) / Double(largest) * Double(width) * 8).rounded())
        let full = min(width, eighths / 8)
        let remainder = full < width ? eighths % 8 : 0
        var bar = String(repeating: "█", count: full)
        if remainder > 0 { bar.append(partialBlocks[remainder - 1]) }
        return bar.isEmpty ? "▏" : bar
    }

    /// Neighbouring buckets added together so that there are at most `limit`.
    ///
    /// - Parameters:
    ///   - buckets: the bars, in order.
    ///   - limit: the most bars wanted.
    /// - Returns: the merged bars (the input when already few enough).
    static func merge(_ buckets: [HistogramBucket], into limit: Int) -> [HistogramBucket] {
        guard buckets.count > limit else { return buckets }
        let groupSize = (buckets.count + limit - 1) / limit
        return stride(from: 0, to: buckets.count, by: groupSize).map { start in
            let group = buckets[start..<min(buckets.count, start + groupSize)]
            let count = group.reduce(0) { $0 &+ $1.count }
            return HistogramBucket(lowerNs: group.first!.lowerNs, upperNs: group.last!.upperNs, count: count)
        }
    }
}
