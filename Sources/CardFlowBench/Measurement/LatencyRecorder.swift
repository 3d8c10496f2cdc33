import Histogram

/// Round-trip times collected into an HdrHistogram (1 ns to 10 min, 3 significant digits:
/// every statistic is within 0.1 % of the exact value, in a few tens of kilobytes whatever the
/// number of samples).
public struct LatencyRecorder: Sendable {
    private var histogram = Histogram<UInt64>(
        lowestDiscernibleValue: 1, highestTrackableValue: 600_000_000_000, numberOfSignificantValueDigits: .three)
    /// Sum of the recorded samples, for the rate.
    public private(set) var totalNanoseconds: Int64 = 0

    public init() {}

    /// Number of samples recorded.
    public var count: Int { Int(histogram.totalCount) }

    /// Records one sample (clamped to the histogram's range).
    ///
    /// - Parameter duration: the round trip's time.
    public mutating func record(_ duration: Duration) {
        let nanoseconds = max(1, min(Self.nanoseconds(duration), 600_000_000_000))
        _ = histogram.record(UInt64(nanoseconds))
        totalNanoseconds += nanoseconds
    }

    /// The summary statistics (all zero when nothing was recorded).
    public var statistics: LatencyStatistics {
        guard count > 0 else {
            return LatencyStatistics(
                count: 0, minNs: 0, p50Ns: 0, p90Ns: 0, p99Ns: 0, p999Ns: 0, maxNs: 0, meanNs: 0,
                standardDeviationNs: 0, apdusPerSecond: 0)
        }
        return LatencyStatistics(
            count: count, minNs: Int64(histogram.min), p50Ns: value(at: 50), p90Ns: value(at: 90),
            p99Ns: value(at: 99), p999Ns: value(at: 99.9), maxNs: Int64(histogram.max),
            meanNs: Int64(histogram.mean.rounded()), standardDeviationNs: Int64(histogram.stdDeviation.rounded()),
            apdusPerSecond: totalNanoseconds > 0 ? Double(count) * 1e9 / Double(totalNanoseconds) : 0)
    }

    /// The value at a percentile (0…100), in nanoseconds.
    ///
    /// - Parameter percentile: 0 to 100.
    public func value(at percentile: Double) -> Int64 {
        Int64(histogram.valueAtPercentile(percentile))
    }

    /// The samples as about `bucketCount` equal-width bars from the smallest to the largest
    /// value (no bars when empty).
    ///
    /// - Parameter bucketCount: how many bars to aim for.
    public func buckets(count bucketCount: Int = 40) -> [HistogramBucket] {
        guard count > 0, bucketCount > 0 else { return [] }
        let low = histogram.lowestEquivalentForValue(histogram.min)
        let high = histogram.highestEquivalentForValue(histogram.max)
        let width = max(1, (high - low + UInt64(bucketCount)) / UInt64(bucketCount))
        let barCount = Int((high - low) / width) + 1
        var counts = [Int](repeating: 0, count: barCount)
        // Each recorded value (an equivalence range of the histogram) goes to one bar, so no
        // sample is counted twice at a bar's edge.
        for step in histogram.recordedValues() {
            let index = min(barCount - 1, Int((histogram.lowestEquivalentForValue(step.value) - low) / width))
            counts[index] += Int(step.count)
        }
        let bars = counts.enumerated().map { index, count in
            let lower = low + UInt64(index) * width
            return HistogramBucket(lowerNs: Int64(lower), upperNs: Int64(lower + width), count: count)
        }
        return bars
    }

    /// The percentile curve (HdrHistogram's percentile iteration, 5 ticks per halving of the
    /// distance to 100 %), ending at 100 %.
    public var percentileCurve: [PercentilePoint] {
        guard count > 0 else { return [] }
        var points: [PercentilePoint] = []
        for step in histogram.percentiles(ticksPerHalfDistance: 5) {
            let point = PercentilePoint(percentile: step.percentileLevelIteratedTo, valueNs: Int64(step.value))
            if points.last != point { points.append(point) }
            if step.percentileLevelIteratedTo >= 100 { break }
        }
        return points
    }

    /// Adds another recorder's samples.
    ///
    /// - Parameter other: the samples to add.
    public mutating func add(_ other: LatencyRecorder) {
        histogram.add(other.histogram)
        totalNanoseconds += other.totalNanoseconds
    }

    static func nanoseconds(_ duration: Duration) -> Int64 {
        let (seconds, attoseconds) = duration.components
        return seconds * 1_000_000_000 + attoseconds / 1_000_000_000
    }
}
