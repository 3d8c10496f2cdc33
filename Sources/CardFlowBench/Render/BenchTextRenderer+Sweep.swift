extension BenchTextRenderer {
    /// A sweep: the points as a table, then the fitted line.
    static func sweepLines(_ sweep: SweepResult) -> [String] {
        var lines = ["sweep: \(sweep.probe), \(sweep.probeDescription); \(sweep.samplesPerPoint) samples per point"]
        if sweep.points.isEmpty {
            lines.append("  no points")
        } else {
            var table = TextTable(
                headers: ["direction", "data", "APDU out/in", "median", "p10–p90", "min"],
                alignments: [.left, .right, .right, .right, .right, .right])
            for point in sweep.points {
                let data = point.direction == .command ? point.commandDataLength : point.responseDataLength
                let wire = "\(point.commandLength)/\(point.responseLength) B" + (point.extended ? " ext" : "")
                table.append([
                    point.direction.rawValue, BenchNumberFormat.bytes(data), wire,
                    BenchNumberFormat.duration(point.medianNs),
                    BenchNumberFormat.duration(point.p10Ns) + "–" + BenchNumberFormat.duration(point.p90Ns),
                    BenchNumberFormat.duration(point.minNs),
                ])
            }
            lines += table.lines()
        }
        guard let fit = sweep.fit else {
            lines.append("fit: none (too few points to fit a line)")
            return lines
        }
        lines.append(
            "fit: time = \(BenchNumberFormat.duration(fit.fixedNs))"
                + " + \(BenchNumberFormat.duration(fit.perCommandByteNs)) × command byte"
                + " + \(BenchNumberFormat.duration(fit.perResponseByteNs)) × response byte")
        lines.append("  fixed cost \(BenchNumberFormat.duration(fit.fixedNs))")
        lines.append(
            "  per command byte \(BenchNumberFormat.duration(fit.perCommandByteNs))"
                + lineRate(fit.commandKilobitsPerSecond))
        lines.append(
            "  per response byte \(BenchNumberFormat.duration(fit.perResponseByteNs))"
                + lineRate(fit.responseKilobitsPerSecond))
        lines.append(
            "  R² \(BenchNumberFormat.fixed(fit.rSquared, decimals: 4)), "
                + "max residual \(BenchNumberFormat.duration(fit.maxResidualNs))")
        return lines
    }

    private static func lineRate(_ kilobitsPerSecond: Double?) -> String {
        guard let kilobitsPerSecond else { return "" }
        return " (≈ \(BenchNumberFormat.rate(kilobitsPerSecond)) kbit/s)"
    }
}
