/// A comparison as SVG bars: each side's median round trip in one panel and its APDUs per
/// second in another, a failed side's error where its bars would be, and the ratios below.
enum ComparisonChart {
    /// The chart's `<svg>`.
    ///
    /// - Parameter comparison: the comparison result.
    /// - Returns: the markup.
    static func svg(_ comparison: ComparisonResult) -> String {
        let sides = comparison.sides
        let rowHeight = 34.0
        let ratios = BenchTextRenderer.ratioLines(comparison)
        let panelBottom = 40 + rowHeight * Double(max(sides.count, 1))
        var chart = SVGChart(
            kind: "comparison", width: 900, height: panelBottom + 48 + 20 * Double(ratios.count),
            title: "Comparison: " + sides.map { BenchTextRenderer.sideName($0.label) }.joined(separator: " and "),
            description: "Median round trip and APDUs per second of each side. " + ratios.joined(separator: ". "))
        let panels: [(title: String, area: PlotArea, value: (LatencyStatistics) -> Double, text: (Double) -> String)] =
            [
                (
                    "median round trip (p50)", PlotArea(left: 110, top: 40, right: 430, bottom: panelBottom),
                    { Double($0.p50Ns) }, { BenchNumberFormat.duration($0) }
                ),
                (
                    "APDUs per second", PlotArea(left: 560, top: 40, right: 860, bottom: panelBottom),
                    { $0.apdusPerSecond }, { BenchNumberFormat.rate($0) }
                ),
            ]
        for panel in panels {
            let area = panel.area
            chart.text(panel.title, x: area.left, y: 22, className: "panel-title")
            chart.line(x1: area.left, y1: area.top, x2: area.left, y2: area.bottom, className: "axis")
            let values = sides.compactMap { $0.latency.map { panel.value($0.statistics) } }.filter(\.isFinite)
            let x = ChartScale(
                minimum: 0, maximum: max(values.max() ?? 0, 1e-9), tickCount: 4, start: area.left,
                end: area.right - 70)
            for (index, side) in sides.enumerated() {
                let top = area.top + Double(index) * rowHeight
                let middle = top + rowHeight / 2
                chart.text(
                    BenchTextRenderer.sideName(side.label), x: area.left - 8, y: middle + 4, anchor: .end,
                    className: "row-label")
                if let statistics = side.latency?.statistics {
                    let value = panel.value(statistics)
                    chart.rect(
                        x: area.left, y: top + 6, width: x.position(value.isFinite ? value : 0) - area.left,
                        height: rowHeight - 12, className: "bar side-\(index)",
                        tooltip: "\(BenchTextRenderer.sideName(side.label)): \(panel.text(value))")
                    chart.text(
                        panel.text(value), x: x.position(value.isFinite ? value : 0) + 6, y: middle + 4,
                        className: "value")
                } else {
                    chart.text(
                        "failed: " + cut(side.failure ?? "no measurement", to: 40), x: area.left + 6, y: middle + 4,
                        className: "failure-label")
                }
            }
        }
        if sides.isEmpty {
            chart.text("no sides", x: 450, y: 60, anchor: .middle)
        }
        for (index, ratio) in ratios.enumerated() {
            chart.text(ratio, x: 20, y: panelBottom + 32 + 20 * Double(index), className: "ratio")
        }
        return chart.markup
    }

    private static func cut(_ text: String, to length: Int) -> String {
        text.count > length ? String(text.prefix(length - 1)) + "…" : text
    }
}
