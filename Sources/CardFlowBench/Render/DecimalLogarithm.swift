/// The base-10 logarithm in plain Swift (the standard library has none without Foundation or
/// the C library): for the log-scaled axis of a percentile curve, where a few digits suffice.
enum DecimalLogarithm {
    private static let ln10 = 2.302_585_092_994_045_684

    /// log10 of a positive finite number (`-infinity` for 0 and below, `nan` for NaN).
    ///
    /// - Parameter value: the number.
    /// - Returns: its decimal logarithm, to about 15 digits.
    static func log10(_ value: Double) -> Double {
        naturalLog(value) / ln10
    }

    /// ln of a positive finite number: `value = significand × 2^exponent` with the significand
    /// in [1, 2), then the atanh series of the significand (converges in a few dozen terms).
    ///
    /// - Parameter value: the number.
    /// - Returns: its natural logarithm.
    static func naturalLog(_ value: Double) -> Double {
        guard !value.isNaN else { return .nan }
        guard value > 0 else { return -.infinity }
        guard value.isFinite else { return .infinity }
        let exponent = Double(value.exponent)
        let significand = value.significand
        // ln(s) = 2 atanh((s - 1) / (s + 1)) = 2 (y + y³/3 + y⁵/5 + …), |y| ≤ 1/3.
        let y = (significand - 1) / (significand + 1)
        let ySquared = y * y
        var term = y
        var sum = 0.0
        var denominator = 1.0
        for _ in 0..<40 {
            sum += term / denominator
            term *= ySquared
            denominator += 2
        }
        return 2 * sum + exponent * 0.693_147_180_559_945_309_4
    }
}
