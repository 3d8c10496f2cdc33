extension BenchHTMLReport {
    /// The scatter plot with the fitted lines, the fit's numbers and the points.
    static func sweepSection(_ sweep: SweepResult) -> String {
        var html =
            "<p>Probe <code>\(HTMLText.escape(sweep.probe))</code>: \(HTMLText.escape(sweep.probeDescription)); "
            + "\(sweep.samplesPerPoint) samples per point.</p>\n"
        html += figure(
            SweepChart.svg(sweep),
            caption: "Median round trip by data bytes; whiskers p10–p90; dashed: the fitted line.")
        html += "<h3>Fit</h3>\n"
        if let fit = sweep.fit {
            func rate(_ value: Double?) -> String {
                value.map { BenchNumberFormat.rate($0) + " kbit/s" } ?? "–"
            }
            html += HTMLTable.facts([
                ("Fixed cost", BenchNumberFormat.duration(fit.fixedNs)),
                ("Per command byte", BenchNumberFormat.duration(fit.perCommandByteNs)),
                ("Per response byte", BenchNumberFormat.duration(fit.perResponseByteNs)),
                ("Command line rate", rate(fit.commandKilobitsPerSecond)),
                ("Response line rate", rate(fit.responseKilobitsPerSecond)),
                ("R²", BenchNumberFormat.fixed(fit.rSquared, decimals: 4)),
                ("Max residual", BenchNumberFormat.duration(fit.maxResidualNs)),
            ])
            html += "\n"
        } else {
            html += "<p>No line was fitted (too few points).</p>\n"
        }
        html += "<h3>Points</h3>\n"
        if sweep.points.isEmpty { return html + "<p>No points.</p>\n" }
        var table = HTMLTable(
            headers: [
                "direction", "data bytes", "APDU out / in", "extended", "samples", "median", "p10", "p90", "min",
            ],
            numericColumns: [1, 2, 4, 5, 6, 7, 8])
        for point in sweep.points {
            table.append([
                point.direction.rawValue, String(SweepChart.dataBytes(point)),
                "\(point.commandLength) / \(point.responseLength)", point.extended ? "yes" : "no",
                String(point.samples),
                BenchNumberFormat.duration(point.medianNs), BenchNumberFormat.duration(point.p10Ns),
                BenchNumberFormat.duration(point.p90Ns), BenchNumberFormat.duration(point.minNs),
            ])
        }
        return html + table.markup + "\n"
    }
}
