/// The plotting area of a chart inside its viewBox, and the axes drawn around it.
struct PlotArea {
    var left: Double
    var top: Double
    var right: Double
    var bottom: Double

    var width: Double { right - left }
    var height: Double { bottom - top }
}

/// A tick on an axis: where it is (in drawing coordinates) and its label.
struct AxisTick {
    var position: Double
    var label: String
}

extension SVGChart {
    /// Draws the axes of a plot: horizontal grid lines and labels at the y ticks, the x axis with
    /// its ticks and labels, and both axis titles.
    ///
    /// - Parameters:
    ///   - area: the plotting area.
    ///   - xTicks: ticks along the bottom (positions are x coordinates).
    ///   - yTicks: ticks along the left (positions are y coordinates).
    ///   - xTitle: what the x axis measures, with its unit.
    ///   - yTitle: what the y axis measures, with its unit.
    mutating func axes(area: PlotArea, xTicks: [AxisTick], yTicks: [AxisTick], xTitle: String, yTitle: String) {
        for tick in yTicks {
            line(x1: area.left, y1: tick.position, x2: area.right, y2: tick.position, className: "grid")
            text(tick.label, x: area.left - 6, y: tick.position + 4, anchor: .end, className: "tick")
        }
        line(x1: area.left, y1: area.bottom, x2: area.right, y2: area.bottom, className: "axis")
        line(x1: area.left, y1: area.top, x2: area.left, y2: area.bottom, className: "axis")
        for tick in xTicks {
            line(x1: tick.position, y1: area.bottom, x2: tick.position, y2: area.bottom + 5, className: "axis")
            text(tick.label, x: tick.position, y: area.bottom + 18, anchor: .middle, className: "tick")
        }
        text(xTitle, x: (area.left + area.right) / 2, y: area.bottom + 38, anchor: .middle, className: "axis-title")
        let middle = (area.top + area.bottom) / 2
        text(yTitle, x: 14, y: middle, anchor: .middle, className: "axis-title", rotation: -90)
    }

    /// Ticks of a linear time scale in one unit, labelled with as many decimals as the step
    /// needs.
    ///
    /// - Parameter scale: a scale of nanoseconds.
    /// - Returns: the ticks and the unit's symbol.
    static func timeTicks(_ scale: ChartScale) -> (ticks: [AxisTick], unit: String) {
        let unit = BenchNumberFormat.unit(for: max(abs(scale.upper), abs(scale.lower)))
        let decimals = BenchNumberFormat.decimals(showing: scale.step / unit.nanoseconds)
        let ticks = scale.ticks.map {
            AxisTick(
                position: scale.position($0), label: BenchNumberFormat.duration($0, in: unit, decimals: decimals))
        }
        return (ticks, unit.symbol)
    }

    /// Ticks of a linear scale of plain numbers (counts, bytes, rates).
    ///
    /// - Parameter scale: the scale.
    /// - Returns: the ticks.
    static func numberTicks(_ scale: ChartScale) -> [AxisTick] {
        let decimals = BenchNumberFormat.decimals(showing: scale.step)
        return scale.ticks.map {
            AxisTick(position: scale.position($0), label: BenchNumberFormat.fixed($0, decimals: decimals))
        }
    }
}
