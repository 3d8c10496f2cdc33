/// A percentile curve as an SVG line, HdrHistogram style: the x axis is log10(1 / (1 − p)), so
/// 0 %, 90 %, 99 %, 99.9 % … sit one decade apart and the tail gets room; the y axis is time.
enum PercentileCurveChart {
    /// The most decades drawn (99.9999999 %); the maximum sits one decade after the last.
    static let maximumDecades = 9.0

    /// The x value of a percentile: log10(1 / (1 − p / 100)), `nil` for 100 % and above.
    ///
    /// - Parameter percentile: 0 to 100.
    /// - Returns: decades from 0 %.
    static func decades(_ percentile: Double) -> Double? {
        guard percentile.isFinite else { return nil }
        let remaining = 1 - max(0, percentile) / 100
        guard remaining > 0 else { return nil }
        return min(maximumDecades, DecimalLogarithm.log10(1 / remaining))
    }

    /// The label of a whole decade: "0%", "90%", "99%", "99.9%", …
    ///
    /// - Parameter decade: 0 or more.
    /// - Returns: the label.
    static func label(decade: Int) -> String {
        switch decade {
        case ...0: return "0%"
        case 1: return "90%"
        default: return "99" + (decade > 2 ? "." + String(repeating: "9", count: decade - 2) : "") + "%"
        }
    }

    /// The chart's `<svg>`.
    ///
    /// - Parameter latency: the latency result.
    /// - Returns: the markup.
    static func svg(_ latency: LatencyResult) -> String {
        let curve = latency.percentileCurve
        let statistics = latency.statistics
        var chart = SVGChart(
            kind: "percentile-curve", width: 560, height: 310, title: "Latency by percentile",
            description: curve.isEmpty
                ? "No round trips were measured."
                : "Round-trip time at each percentile on a log scale of 1/(1−p): p50 "
                    + "\(BenchNumberFormat.duration(statistics.p50Ns)), p99 \(BenchNumberFormat.duration(statistics.p99Ns)), "
                    + "p99.9 \(BenchNumberFormat.duration(statistics.p999Ns)), max \(BenchNumberFormat.duration(statistics.maxNs))."
        )
        let area = PlotArea(left: 64, top: 20, right: 544, bottom: 256)
        let lastFinite = curve.compactMap { decades($0.percentile) }.max() ?? 0
        let lastDecade = Int(min(maximumDecades, max(2, (lastFinite + 0.5).rounded(.up))))
        let xMaximum = Double(lastDecade)
        func xPosition(_ percentile: Double) -> Double {
            area.left + (decades(percentile) ?? xMaximum) / xMaximum * area.width
        }
        let largest = Double(curve.map(\.valueNs).max() ?? 0)
        let y = ChartScale(minimum: 0, maximum: max(largest, 1), tickCount: 5, start: area.bottom, end: area.top)
        var xTicks = (0..<lastDecade).map {
            AxisTick(position: area.left + Double($0) / xMaximum * area.width, label: label(decade: $0))
        }
        xTicks.append(AxisTick(position: area.right, label: "max"))
        let (yTicks, unit) = SVGChart.timeTicks(y)
        chart.axes(
            area: area, xTicks: xTicks, yTicks: yTicks, xTitle: "percentile (log scale of 1/(1−p))",
            yTitle: "round-trip time (\(unit))")
        guard !curve.isEmpty else {
            chart.text("no samples", x: (area.left + area.right) / 2, y: area.top + area.height / 2, anchor: .middle)
            return chart.markup
        }
        var points = curve.map { (x: xPosition($0.percentile), y: y.position(Double($0.valueNs))) }
        if points.count == 1 { points.append((x: area.right, y: points[0].y)) }
        chart.polyline(points, className: "curve")
        let marks: [(String, Double, Int64)] = [
            ("p50", 50, statistics.p50Ns), ("p90", 90, statistics.p90Ns), ("p99", 99, statistics.p99Ns),
            ("p99.9", 99.9, statistics.p999Ns),
        ]
        for (name, percentile, value) in marks where statistics.count > 0 {
            let position = (x: xPosition(percentile), y: y.position(Double(value)))
            chart.circle(
                x: position.x, y: position.y, radius: 3.5, className: "mark",
                tooltip: "\(name): \(BenchNumberFormat.duration(value))")
            chart.text(name, x: position.x - 4, y: position.y - 7, anchor: .end, className: "marker-label")
        }
        return chart.markup
    }
}
