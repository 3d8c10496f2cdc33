/// Round-trip times of one APDU sent over and over (closed loop).
public struct LatencyResult: Sendable, Hashable, Codable {
    /// The command APDU in hex.
    public var command: String
    /// Status word of the last answer, in hex, and the answer's data length.
    public var statusWord: String
    public var responseLength: Int
    /// Warm-up round trips before measuring (not in the statistics).
    public var warmupCount: Int
    /// Measured wall time of the whole run (including the host's own time between APDUs).
    public var durationNs: Int64
    public var statistics: LatencyStatistics
    /// The histogram as bars: values in `[lowerNs, upperNs)` and how many samples fell there.
    public var histogram: [HistogramBucket]
    /// The percentile curve: value at each percentile (HdrHistogram's percentile iteration).
    public var percentileCurve: [PercentilePoint]
    /// Things that explain slow samples: time extensions the reader asked for, frames re-sent
    /// or discarded, failed exchanges.
    public var outliers: LatencyOutliers

    public init(
        command: String, statusWord: String, responseLength: Int, warmupCount: Int, durationNs: Int64,
        statistics: LatencyStatistics, histogram: [HistogramBucket], percentileCurve: [PercentilePoint],
        outliers: LatencyOutliers
    ) {
        self.command = command
        self.statusWord = statusWord
        self.responseLength = responseLength
        self.warmupCount = warmupCount
        self.durationNs = durationNs
        self.statistics = statistics
        self.histogram = histogram
        self.percentileCurve = percentileCurve
        self.outliers = outliers
    }
}

/// Summary statistics of a set of round trips, in nanoseconds (HdrHistogram with 3 significant
/// digits: values are exact to 0.1 %).
public struct LatencyStatistics: Sendable, Hashable, Codable {
    public var count: Int
    public var minNs: Int64
    public var p50Ns: Int64
    public var p90Ns: Int64
    public var p99Ns: Int64
    public var p999Ns: Int64
    public var maxNs: Int64
    public var meanNs: Int64
    public var standardDeviationNs: Int64
    /// Round trips per second over the measured time (count / sum of samples).
    public var apdusPerSecond: Double

    public init(
        count: Int, minNs: Int64, p50Ns: Int64, p90Ns: Int64, p99Ns: Int64, p999Ns: Int64, maxNs: Int64,
        meanNs: Int64, standardDeviationNs: Int64, apdusPerSecond: Double
    ) {
        self.count = count
        self.minNs = minNs
        self.p50Ns = p50Ns
        self.p90Ns = p90Ns
        self.p99Ns = p99Ns
        self.p999Ns = p999Ns
        self.maxNs = maxNs
        self.meanNs = meanNs
        self.standardDeviationNs = standardDeviationNs
        self.apdusPerSecond = apdusPerSecond
    }
}

/// One bar of a latency histogram.
public struct HistogramBucket: Sendable, Hashable, Codable {
    public var lowerNs: Int64
    public var upperNs: Int64
    public var count: Int

    public init(lowerNs: Int64, upperNs: Int64, count: Int) {
        self.lowerNs = lowerNs
        self.upperNs = upperNs
        self.count = count
    }
}

/// One point of a percentile curve: `percentile` % of samples took at most `valueNs`.
public struct PercentilePoint: Sendable, Hashable, Codable {
    public var percentile: Double
    public var valueNs: Int64

    public init(percentile: Double, valueNs: Int64) {
        self.percentile = percentile
        self.valueNs = valueNs
    }
}

/// Events during a run that explain slow samples. Counts come from the CCID driver where the
/// reader is on CardFlow's own driver; other backends cannot see them (`nil`).
public struct LatencyOutliers: Sendable, Hashable, Codable {
    /// CCID time extensions (the reader asking for more time) during measured round trips.
    public var timeExtensions: Int?
    /// CCID frames with a stale sequence number the driver discarded.
    public var discardedFrames: Int?
    /// T=1 blocks the driver sent again (R-blocks after an error, resynchronisations).
    public var retransmissions: Int?
    /// The slowest samples (at most 20) above twice the run's p99 (and three times the
    /// warm-up's median), with their positions in the run and what the driver saw meanwhile.
    public var slowSamples: [SlowSample]
    /// Round trips that failed (and were not measured), with the first error.
    public var failures: Int
    public var firstFailure: String?

    public init(
        timeExtensions: Int? = nil, discardedFrames: Int? = nil, retransmissions: Int? = nil,
        slowSamples: [SlowSample] = [], failures: Int = 0, firstFailure: String? = nil
    ) {
        self.timeExtensions = timeExtensions
        self.discardedFrames = discardedFrames
        self.retransmissions = retransmissions
        self.slowSamples = slowSamples
        self.failures = failures
        self.firstFailure = firstFailure
    }
}

/// A sample far above the rest.
public struct SlowSample: Sendable, Hashable, Codable {
    /// Its position among the measured samples (0 = first after warm-up).
    public var index: Int
    public var valueNs: Int64
    /// What happened during it, where known ("2 time extensions").
    public var cause: String?

    public init(index: Int, valueNs: Int64, cause: String?) {
        self.index = index
        self.valueNs = valueNs
        self.cause = cause
    }
}
