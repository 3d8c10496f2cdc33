extension BenchHTMLReport {
    /// The statistics, the histogram and percentile curve side by side, and the outliers.
    static func latencySection(_ latency: LatencyResult) -> String {
        let statistics = latency.statistics
        var html =
            HTMLTable.facts(
                [
                    ("Command", latency.command.isEmpty ? "(none)" : latency.command),
                    ("Answer", "\(latency.statusWord), \(latency.responseLength) bytes of data"),
                    ("Warm-up", "\(latency.warmupCount) round trips (not counted)"),
                    ("Run time", BenchNumberFormat.duration(latency.durationNs)),
                    ("APDU/s", BenchNumberFormat.rate(statistics.apdusPerSecond)),
                ], className: "facts") + "\n"
        html += statisticsTable(statistics)
        html += "<div class=\"charts\">\n"
        html += figure(LatencyHistogramChart.svg(latency), caption: "Round trips per time bucket; dashed: p50 and p99.")
        html += figure(
            PercentileCurveChart.svg(latency),
            caption: "Round-trip time by percentile; the x axis stretches the tail (0 %, 90 %, 99 %, 99.9 % …).")
        html += "</div>\n"
        html += outliersList(latency.outliers)
        return html
    }

    /// Count, percentiles, mean and standard deviation in one row.
    static func statisticsTable(_ statistics: LatencyStatistics) -> String {
        var table = HTMLTable(
            headers: ["count", "min", "p50", "p90", "p99", "p99.9", "max", "mean", "stddev", "APDU/s"],
            numericColumns: Set(0..<10))
        let times = [
            statistics.minNs, statistics.p50Ns, statistics.p90Ns, statistics.p99Ns, statistics.p999Ns,
            statistics.maxNs, statistics.meanNs, statistics.standardDeviationNs,
        ]
        table.append(
            [String(statistics.count)] + times.map(BenchNumberFormat.duration)
                + [BenchNumberFormat.rate(statistics.apdusPerSecond)])
        return table.markup + "\n"
    }

    static func outliersList(_ outliers: LatencyOutliers) -> String {
        var items: [String] = []
        let counted: [(String, Int?)] = [
            ("Time extensions", outliers.timeExtensions), ("Discarded frames", outliers.discardedFrames),
            ("Retransmissions", outliers.retransmissions),
        ]
        for (name, count) in counted {
            items.append("\(name): " + (count.map(String.init) ?? "not visible on this backend"))
        }
        var html = "<h3>Outliers</h3>\n<ul class=\"plain\">\n"
        html += items.map { "<li>\(HTMLText.escape($0))</li>\n" }.joined()
        if outliers.failures == 0 {
            html += "<li>Failures: none</li>\n"
        } else {
            html +=
                "<li class=\"failure\">Failures: \(outliers.failures)"
                + (outliers.firstFailure.map { "; first: " + HTMLText.escape($0) } ?? "") + "</li>\n"
        }
        html += "</ul>\n"
        if outliers.slowSamples.isEmpty {
            html += "<p>No slow samples (above 2 × p99).</p>\n"
        } else {
            var table = HTMLTable(headers: ["sample #", "time", "cause"], numericColumns: [0, 1])
            for sample in outliers.slowSamples {
                table.append([String(sample.index), BenchNumberFormat.duration(sample.valueNs), sample.cause ?? "–"])
            }
            html += "<p>Slow samples (above 2 × p99):</p>\n" + table.markup + "\n"
        }
        return html
    }
}
