/// Per-operation timings as horizontal SVG bars: the p50 of each operation as a bar, its p90 as
/// a mark beyond it, the operation's name on the left and the p50 at the bar's end.
enum OperationsChart {
    /// Names longer than this are cut (the full name is the bar's tooltip).
    static let labelCharacters = 34

    /// The chart's `<svg>`.
    ///
    /// - Parameter operations: the operations result.
    /// - Returns: the markup.
    static func svg(_ operations: OperationsResult) -> String {
        let rows = operations.operations
        let rowHeight = 28.0
        let area = PlotArea(left: 250, top: 16, right: 860, bottom: 16 + rowHeight * Double(max(rows.count, 1)))
        var chart = SVGChart(
            kind: "operations", width: 900, height: area.bottom + 50, title: "Operation times (\(operations.family))",
            description: rows.isEmpty
                ? "No operation was measured."
                : "Median (p50) time of each of \(rows.count) operations as a bar, with its p90 as a mark.")
        let largest = rows.map { Double(max($0.statistics.p90Ns, $0.statistics.p50Ns)) }.max() ?? 0
        let x = ChartScale(minimum: 0, maximum: max(largest, 1), tickCount: 6, start: area.left, end: area.right)
        let (xTicks, unit) = SVGChart.timeTicks(x)
        chart.axes(
            area: area, xTicks: xTicks, yTicks: [], xTitle: "time per operation (\(unit)): bar p50, mark p90",
            yTitle: "")
        if rows.isEmpty {
            chart.text("no operations measured", x: (area.left + area.right) / 2, y: area.top + 18, anchor: .middle)
        }
        for (index, operation) in rows.enumerated() {
            let top = area.top + Double(index) * rowHeight
            let middle = top + rowHeight / 2
            let statistics = operation.statistics
            let p50 = x.position(Double(statistics.p50Ns))
            let p90 = x.position(Double(statistics.p90Ns))
            chart.text(label(operation), x: area.left - 8, y: middle + 4, anchor: .end, className: "row-label")
            chart.rect(
                x: area.left, y: top + 5, width: p50 - area.left, height: rowHeight - 10, className: "bar",
                tooltip: "\(operation.name): p50 \(BenchNumberFormat.duration(statistics.p50Ns)), "
                    + "p90 \(BenchNumberFormat.duration(statistics.p90Ns)), "
                    + "\(BenchNumberFormat.rate(statistics.apdusPerSecond)) ops/s")
            chart.line(x1: p90, y1: top + 3, x2: p90, y2: top + rowHeight - 3, className: "p90")
            chart.text(
                BenchNumberFormat.duration(statistics.p50Ns), x: max(p50, p90) + 6, y: middle + 4,
                className: "value")
        }
        return chart.markup
    }

    /// The row's label: name, communication mode and bytes, cut to ``labelCharacters``.
    static func label(_ operation: OperationTiming) -> String {
        var text = operation.name
        if let mode = operation.commMode { text += " (\(mode))" }
        guard text.count > labelCharacters else { return text }
        return String(text.prefix(labelCharacters - 1)) + "…"
    }
}
