/// A linear axis for a chart: a data range widened to round numbers, its ticks (steps of 1, 2
/// or 5 × a power of ten) and the mapping from data to drawing coordinates.
struct ChartScale {
    /// The axis' data range, from the tick at or below the smallest value to the tick at or
    /// above the largest.
    var lower: Double
    var upper: Double
    /// The distance between ticks.
    var step: Double
    /// Where the axis is drawn: `lower` maps to `start`, `upper` to `end` (end may be below
    /// start, as for a y axis growing upwards).
    var start: Double
    var end: Double

    /// A scale covering `minimum…maximum` with about `tickCount` ticks.
    ///
    /// - Parameters:
    ///   - minimum: the smallest value to show.
    ///   - maximum: the largest value to show (a range of width zero widens to one step).
    ///   - tickCount: about how many ticks.
    ///   - start: the drawing coordinate of the lower end.
    ///   - end: the drawing coordinate of the upper end.
    init(minimum: Double, maximum: Double, tickCount: Int = 5, start: Double, end: Double) {
        var low = minimum.isFinite ? minimum : 0
        var high = maximum.isFinite ? maximum : low + 1
        if high < low { swap(&low, &high) }
        if high == low { high = low == 0 ? 1 : low + abs(low) * 0.1 }
        let rawStep = (high - low) / Double(max(1, tickCount))
        let magnitude = BenchNumberFormat.power10Signed(BenchNumberFormat.decimalExponent(of: rawStep))
        let residual = rawStep / magnitude
        let factor: Double = residual < 1.5 ? 1 : residual < 3 ? 2 : residual < 7 ? 5 : 10
        step = factor * magnitude
        lower = (low / step).rounded(.down) * step
        upper = (high / step).rounded(.up) * step
        if upper <= lower { upper = lower + step }
        self.start = start
        self.end = end
    }

    /// The tick values from `lower` to `upper` (at most 60).
    var ticks: [Double] {
        var ticks: [Double] = []
        var index = 0.0
        while ticks.count < 60 {
            let value = lower + index * step
            if value > upper + step * 1e-9 { break }
            ticks.append(value)
            index += 1
        }
        return ticks
    }

    /// The drawing coordinate of a data value (values outside the range map outside the axis).
    ///
    /// - Parameter value: the data value.
    /// - Returns: the coordinate.
    func position(_ value: Double) -> Double {
        guard value.isFinite else { return start }
        return start + (value - lower) / (upper - lower) * (end - start)
    }
}
