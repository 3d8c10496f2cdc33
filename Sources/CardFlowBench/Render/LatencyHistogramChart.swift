/// A latency histogram as an SVG bar chart: one bar per non-empty bucket over a linear time
/// axis, counts up the side, dashed marks at p50 and p99.
enum LatencyHistogramChart {
    /// The chart's `<svg>`.
    ///
    /// - Parameter latency: the latency result.
    /// - Returns: the markup.
    static func svg(_ latency: LatencyResult) -> String {
        let statistics = latency.statistics
        let buckets = TextHistogram.merge(latency.histogram, into: 200)
        let total = buckets.reduce(0) { $0 &+ max(0, $1.count) }
        var chart = SVGChart(
            kind: "latency-histogram", width: 560, height: 310, title: "Latency histogram",
            description: total == 0
                ? "No round trips were measured."
                : "\(total) round trips in \(buckets.count) buckets from "
                    + "\(BenchNumberFormat.duration(statistics.minNs)) to \(BenchNumberFormat.duration(statistics.maxNs)); "
                    + "p50 \(BenchNumberFormat.duration(statistics.p50Ns)), p99 \(BenchNumberFormat.duration(statistics.p99Ns))."
        )
        let area = PlotArea(left: 64, top: 20, right: 544, bottom: 256)
        guard total > 0, let first = buckets.first, let last = buckets.last else {
            let y = ChartScale(minimum: 0, maximum: 1, start: area.bottom, end: area.top)
            chart.axes(
                area: area, xTicks: [], yTicks: SVGChart.numberTicks(y), xTitle: "round-trip time",
                yTitle: "round trips")
            chart.text("no samples", x: (area.left + area.right) / 2, y: area.top + area.height / 2, anchor: .middle)
            return chart.markup
        }
        let x = ChartScale(
            minimum: Double(first.lowerNs), maximum: Double(last.upperNs), tickCount: 6, start: area.left,
            end: area.right)
        let largest = buckets.map(\.count).max() ?? 1
        let y = ChartScale(minimum: 0, maximum: Double(largest), tickCount: 5, start: area.bottom, end: area.top)
        let (xTicks, unit) = SVGChart.timeTicks(x)
        chart.axes(
            area: area, xTicks: xTicks, yTicks: SVGChart.numberTicks(y), xTitle: "round-trip time (\(unit))",
            yTitle: "round trips")
        for bucket in buckets where bucket.count > 0 {
            let left = x.position(Double(bucket.lowerNs))
            let right = x.position(Double(bucket.upperNs))
            let top = y.position(Double(bucket.count))
            let gap = right - left > 3 ? 1.0 : 0.0
            chart.rect(
                x: left, y: top, width: max(0.8, right - left - gap), height: area.bottom - top, className: "bar",
                tooltip: "\(BenchNumberFormat.duration(bucket.lowerNs))–\(BenchNumberFormat.duration(bucket.upperNs)): "
                    + "\(bucket.count) round trips")
        }
        for (name, value) in [("p50", statistics.p50Ns), ("p99", statistics.p99Ns)] where value > 0 {
            let position = x.position(Double(value))
            guard position >= area.left, position <= area.right else { continue }
            chart.line(x1: position, y1: area.top, x2: position, y2: area.bottom, className: "marker")
            chart.text(name, x: position + 3, y: area.top + 10, className: "marker-label")
        }
        return chart.markup
    }
}
