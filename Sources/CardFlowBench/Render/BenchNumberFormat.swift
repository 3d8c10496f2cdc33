/// Numbers as people read them in a bench report: three significant digits, times in the unit
/// that suits them (ns, µs, ms, s), rates and ratios. Plain Swift (no Foundation), the same text
/// on every platform.
enum BenchNumberFormat {
    /// A time unit for showing nanoseconds.
    struct TimeUnit: Sendable, Hashable {
        /// "ns", "µs", "ms" or "s".
        var symbol: String
        /// Nanoseconds in one unit.
        var nanoseconds: Double

        static let nanosecond = TimeUnit(symbol: "ns", nanoseconds: 1)
        static let microsecond = TimeUnit(symbol: "µs", nanoseconds: 1e3)
        static let millisecond = TimeUnit(symbol: "ms", nanoseconds: 1e6)
        static let second = TimeUnit(symbol: "s", nanoseconds: 1e9)
        static let all: [TimeUnit] = [.nanosecond, .microsecond, .millisecond, .second]
    }

    /// The unit in which `nanoseconds` shows with one to three digits before the point (seconds
    /// for anything from 1 s up).
    ///
    /// - Parameter nanoseconds: the value the unit is chosen for (its magnitude).
    /// - Returns: the unit.
    static func unit(for nanoseconds: Double) -> TimeUnit {
        let magnitude = nanoseconds.isFinite ? abs(nanoseconds) : 0
        for unit in TimeUnit.all.dropLast() where abs(rounded(magnitude / unit.nanoseconds)) < 1000 {
            return unit
        }
        return .second
    }

    /// A time in the unit that suits it, with three significant digits: "850 ns", "12.3 µs",
    /// "1.50 ms", "2.00 s".
    ///
    /// - Parameter nanoseconds: the time.
    /// - Returns: the text.
    static func duration(_ nanoseconds: Double) -> String {
        guard nanoseconds.isFinite else { return "–" }
        let unit = unit(for: nanoseconds)
        return significant(nanoseconds / unit.nanoseconds) + " " + unit.symbol
    }

    /// A time in the unit that suits it, with three significant digits.
    ///
    /// - Parameter nanoseconds: the time.
    /// - Returns: the text.
    static func duration(_ nanoseconds: Int64) -> String {
        duration(Double(nanoseconds))
    }

    /// A time in a given unit, without the unit's symbol.
    ///
    /// - Parameters:
    ///   - nanoseconds: the time.
    ///   - unit: the unit to show it in.
    ///   - decimals: digits after the point; `nil` for three significant digits.
    /// - Returns: the number.
    static func duration(_ nanoseconds: Double, in unit: TimeUnit, decimals: Int? = nil) -> String {
        let value = nanoseconds / unit.nanoseconds
        if let decimals { return fixed(value, decimals: decimals) }
        return significant(value)
    }

    /// Digits after the point that tell values `step` apart (one significant digit of the
    /// step), at most 6.
    ///
    /// - Parameter step: the smallest difference to show.
    /// - Returns: 0 to 6.
    static func decimals(showing step: Double) -> Int {
        guard step.isFinite, step > 0 else { return 0 }
        var decimals = 0
        var scaled = step
        while scaled < 1, decimals < 6 {
            scaled *= 10
            decimals += 1
        }
        return decimals
    }

    /// A rate or count per second with three significant digits ("1.23 k" style is not used:
    /// a report reader compares plain numbers): "1234", "12.3", "0.500".
    ///
    /// - Parameter value: the rate.
    /// - Returns: the text.
    static func rate(_ value: Double) -> String {
        significant(value)
    }

    /// A ratio as "1.42×".
    ///
    /// - Parameter value: the ratio.
    /// - Returns: the text.
    static func ratio(_ value: Double) -> String {
        guard value.isFinite else { return "–" }
        return fixed(value, decimals: value >= 100 ? 0 : 2) + "×"
    }

    /// A byte count: "512 B", "64 KiB"-style is not used (sizes in a bench are APDU sizes, read
    /// exactly): the number and "B".
    ///
    /// - Parameter bytes: the count.
    /// - Returns: the text.
    static func bytes(_ bytes: Int) -> String {
        "\(bytes) B"
    }

    /// A number with `digits` significant digits, never dropping digits before the point
    /// ("12345" stays "12345"); exponent form from 1e15 up and below 1e-6. "0" for zero, "–"
    /// for NaN, "∞" for infinity.
    ///
    /// - Parameters:
    ///   - value: the number.
    ///   - digits: significant digits (1 or more).
    /// - Returns: the text.
    static func significant(_ value: Double, digits: Int = 3) -> String {
        guard value.isFinite else { return value.isNaN ? "–" : (value < 0 ? "-∞" : "∞") }
        if value == 0 { return "0" }
        let digits = max(1, digits)
        let magnitude = abs(value)
        let sign = value < 0 ? "-" : ""
        if magnitude >= 1e15 || magnitude < 1e-6 {
            return sign + exponentForm(magnitude, digits: digits)
        }
        var decimals = max(0, digits - 1 - decimalExponent(of: magnitude))
        // 9.996 at three digits rounds up to 10.0: one decimal fewer keeps three digits.
        if decimals > 0, decimalExponent(of: rounded(magnitude, decimals: decimals)) > decimalExponent(of: magnitude) {
            decimals -= 1
        }
        return sign + fixed(magnitude, decimals: decimals)
    }

    /// A number with a fixed count of digits after the point ("1.50", "-0.25", "12").
    ///
    /// - Parameters:
    ///   - value: the number (below 1e15 in magnitude; larger ones use the exponent form).
    ///   - decimals: digits after the point, 0 to 9.
    /// - Returns: the text.
    static func fixed(_ value: Double, decimals: Int) -> String {
        guard value.isFinite else { return value.isNaN ? "–" : (value < 0 ? "-∞" : "∞") }
        let decimals = min(max(0, decimals), 9)
        if abs(value) >= 1e15 { return (value < 0 ? "-" : "") + exponentForm(abs(value), digits: 3) }
        let scale = power10(decimals)
        let scaled = (abs(value) * scale).rounded()
        let whole = UInt64(scaled / scale)
        // Floating point can put `whole` one above the truncation: keep the fraction in range.
        let fraction = UInt64(min(max(0, scaled - Double(whole) * scale), scale - 1))
        let sign = value < 0 && scaled > 0 ? "-" : ""
        guard decimals > 0 else { return sign + String(whole) }
        let fractionText = String(fraction)
        return sign + String(whole) + "." + String(repeating: "0", count: decimals - fractionText.count) + fractionText
    }

    /// `value` rounded to three significant digits, as a number (to choose a unit before
    /// formatting: 999.7 ns shows as "1.00 µs", not "1000 ns").
    static func rounded(_ value: Double) -> Double {
        guard value.isFinite, value != 0 else { return value }
        let decimals = 2 - decimalExponent(of: abs(value))
        return rounded(value, decimals: decimals)
    }

    private static func rounded(_ value: Double, decimals: Int) -> Double {
        if decimals >= 0 {
            let scale = power10(decimals)
            return (value * scale).rounded() / scale
        }
        let scale = power10(-decimals)
        return (value / scale).rounded() * scale
    }

    /// The power of ten of a positive finite number's leading digit (`1234` → 3, `0.05` → -2).
    static func decimalExponent(of magnitude: Double) -> Int {
        guard magnitude.isFinite, magnitude > 0 else { return 0 }
        var exponent = 0
        var scaled = magnitude
        while scaled >= 10 {
            scaled /= 10
            exponent += 1
        }
        while scaled < 1 {
            scaled *= 10
            exponent -= 1
        }
        return exponent
    }

    private static func exponentForm(_ magnitude: Double, digits: Int) -> String {
        var exponent = decimalExponent(of: magnitude)
        var mantissa = magnitude / power10Signed(exponent)
        if rounded(mantissa, decimals: digits - 1) >= 10 {
            exponent += 1
            mantissa /= 10
        }
        return fixed(mantissa, decimals: digits - 1) + "e" + String(exponent)
    }

    private static func power10(_ exponent: Int) -> Double {
        var result = 1.0
        for _ in 0..<max(0, exponent) { result *= 10 }
        return result
    }

    /// 10 to the power `exponent` (negative exponents too).
    ///
    /// - Parameter exponent: the power.
    /// - Returns: the number.
    static func power10Signed(_ exponent: Int) -> Double {
        exponent >= 0 ? power10(exponent) : 1 / power10(-exponent)
    }
}
