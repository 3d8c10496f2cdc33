/// The same latency test through two paths to one reader (CardFlow's own CCID driver and
/// pcscd with libccid), one after the other.
public struct ComparisonResult: Sendable, Hashable, Codable {
    public var sides: [ComparisonSide]
    /// p50 of the second side divided by p50 of the first (above 1: the first is faster).
    public var p50Ratio: Double?
    /// APDUs per second of the first side divided by the second's.
    public var throughputRatio: Double?

    public init(sides: [ComparisonSide]) {
        self.sides = sides
        if sides.count == 2, let first = sides[0].latency?.statistics, let second = sides[1].latency?.statistics {
            p50Ratio = first.p50Ns > 0 ? Double(second.p50Ns) / Double(first.p50Ns) : nil
            throughputRatio = second.apdusPerSecond > 0 ? first.apdusPerSecond / second.apdusPerSecond : nil
        }
    }
}

/// One path of a comparison.
public struct ComparisonSide: Sendable, Hashable, Codable {
    /// "cardflow" or "pcscd".
    public var label: String
    public var reader: BenchReaderIdentity
    /// Its measurement, or why there is none.
    public var latency: LatencyResult?
    public var failure: String?

    public init(label: String, reader: BenchReaderIdentity, latency: LatencyResult?, failure: String?) {
        self.label = label
        self.reader = reader
        self.latency = latency
        self.failure = failure
    }
}
