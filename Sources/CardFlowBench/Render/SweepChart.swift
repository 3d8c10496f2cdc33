/// A size sweep as an SVG scatter plot: each point's median against its data bytes, command and
/// response directions in two colours, p10–p90 whiskers, the fitted line of each direction and
/// a legend with the fit's numbers.
enum SweepChart {
    /// The chart's `<svg>`.
    ///
    /// - Parameter sweep: the sweep result.
    /// - Returns: the markup.
    static func svg(_ sweep: SweepResult) -> String {
        let points = sweep.points
        var chart = SVGChart(
            kind: "sweep", width: 900, height: 380, title: "Round-trip time by data size",
            description: description(sweep))
        let area = PlotArea(left: 72, top: 64, right: 880, bottom: 322)
        let fitLines = fitSegments(sweep)
        let largestBytes = points.map { Double(dataBytes($0)) }.max() ?? 0
        let times =
            points.flatMap { [Double($0.p10Ns), Double($0.p90Ns), Double($0.medianNs)] }
            + fitLines.flatMap { [$0.fromNs, $0.toNs] }
        let x = ChartScale(minimum: 0, maximum: max(largestBytes, 1), tickCount: 8, start: area.left, end: area.right)
        let y = ChartScale(
            minimum: min(0, times.min() ?? 0), maximum: max(times.max() ?? 0, 1), tickCount: 5, start: area.bottom,
            end: area.top)
        let (yTicks, unit) = SVGChart.timeTicks(y)
        chart.axes(
            area: area, xTicks: SVGChart.numberTicks(x), yTicks: yTicks, xTitle: "data bytes (command or response)",
            yTitle: "round-trip time (\(unit))")
        if points.isEmpty {
            chart.text("no points", x: (area.left + area.right) / 2, y: area.top + area.height / 2, anchor: .middle)
        }
        for segment in fitLines {
            chart.line(
                x1: x.position(0), y1: y.position(segment.fromNs), x2: x.position(segment.toBytes),
                y2: y.position(segment.toNs), className: "fit \(segment.direction.rawValue)")
        }
        for point in points {
            let className = point.direction.rawValue
            let position = x.position(Double(dataBytes(point)))
            chart.line(
                x1: position, y1: y.position(Double(point.p10Ns)), x2: position, y2: y.position(Double(point.p90Ns)),
                className: "whisker \(className)")
            chart.circle(
                x: position, y: y.position(Double(point.medianNs)), radius: 4, className: "point \(className)",
                tooltip: "\(point.direction.rawValue) \(dataBytes(point)) B: median "
                    + "\(BenchNumberFormat.duration(point.medianNs)), p10–p90 "
                    + "\(BenchNumberFormat.duration(point.p10Ns))–\(BenchNumberFormat.duration(point.p90Ns))")
        }
        legend(&chart, sweep: sweep, area: area)
        return chart.markup
    }

    /// The bytes that grow at a point: command data for the command direction, response data
    /// for the response direction.
    static func dataBytes(_ point: SweepPoint) -> Int {
        point.direction == .command ? point.commandDataLength : point.responseDataLength
    }

    /// A fitted line from 0 bytes to the largest size of one direction.
    struct FitSegment {
        var direction: SweepDirection
        var fromNs: Double
        var toBytes: Double
        var toNs: Double
    }

    /// The fitted line of each direction that has points (none without a fit).
    static func fitSegments(_ sweep: SweepResult) -> [FitSegment] {
        guard let fit = sweep.fit, fit.fixedNs.isFinite else { return [] }
        var segments: [FitSegment] = []
        for direction in [SweepDirection.command, .response] {
            let sizes = sweep.points.filter { $0.direction == direction }.map { Double(dataBytes($0)) }
            guard let largest = sizes.max(), largest > 0 else { continue }
            let perByte = direction == .command ? fit.perCommandByteNs : fit.perResponseByteNs
            guard perByte.isFinite else { continue }
            segments.append(
                FitSegment(
                    direction: direction, fromNs: fit.fixedNs, toBytes: largest, toNs: fit.fixedNs + perByte * largest))
        }
        return segments
    }

    private static func legend(_ chart: inout SVGChart, sweep: SweepResult, area: PlotArea) {
        let fit = sweep.fit
        let entries: [(SweepDirection, String)] = [
            (.command, "command data" + perByteText(fit?.perCommandByteNs, rate: fit?.commandKilobitsPerSecond)),
            (.response, "response data" + perByteText(fit?.perResponseByteNs, rate: fit?.responseKilobitsPerSecond)),
        ]
        for (index, entry) in entries.enumerated() {
            let left = area.left + Double(index) * 400
            chart.circle(x: left + 6, y: 20, radius: 5, className: "point \(entry.0.rawValue)")
            chart.text(entry.1, x: left + 16, y: 24, className: "legend")
        }
        let fitText: String
        if let fit {
            fitText =
                "fit: fixed \(BenchNumberFormat.duration(fit.fixedNs)), R² \(BenchNumberFormat.fixed(fit.rSquared, decimals: 4)), "
                + "max residual \(BenchNumberFormat.duration(fit.maxResidualNs)); whiskers: p10–p90"
        } else {
            fitText = "no fit (too few points); whiskers: p10–p90"
        }
        chart.text(fitText, x: area.left, y: 46, className: "legend")
    }

    private static func perByteText(_ perByte: Double?, rate: Double?) -> String {
        guard let perByte else { return "" }
        let rateText = rate.map { " ≈ \(BenchNumberFormat.rate($0)) kbit/s" } ?? ""
        return ": \(BenchNumberFormat.duration(perByte))/byte\(rateText)"
    }

    private static func description(_ sweep: SweepResult) -> String {
        let commands = sweep.points.filter { $0.direction == .command }.count
        let responses = sweep.points.count - commands
        var text = "\(commands) command-size points and \(responses) response-size points (median with p10–p90)."
        if let fit = sweep.fit {
            text +=
                " Fitted line: \(BenchNumberFormat.duration(fit.fixedNs)) fixed, "
                + "\(BenchNumberFormat.duration(fit.perCommandByteNs)) per command byte, "
                + "\(BenchNumberFormat.duration(fit.perResponseByteNs)) per response byte."
        } else {
            text += " No line was fitted."
        }
        return text
    }
}
