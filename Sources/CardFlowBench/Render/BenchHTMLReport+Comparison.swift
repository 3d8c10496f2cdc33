extension BenchHTMLReport {
    /// The two sides' bars, the ratios in words, and each side's reader and figures.
    static func comparisonSection(_ comparison: ComparisonResult) -> String {
        var html = figure(ComparisonChart.svg(comparison), caption: "Median round trip and APDUs per second per side.")
        for line in BenchTextRenderer.ratioLines(comparison) {
            html += "<p class=\"ratio-text\">\(HTMLText.escape(line))</p>\n"
        }
        for side in comparison.sides {
            html += "<h3>\(HTMLText.escape(BenchTextRenderer.sideName(side.label)))</h3>\n"
            html += identityTable(side.reader, card: nil, clock: nil)
            if let latency = side.latency {
                html += statisticsTable(latency.statistics)
            } else {
                html += "<p class=\"failure\">Failed: \(HTMLText.escape(side.failure ?? "no measurement"))</p>\n"
            }
        }
        return html
    }
}
