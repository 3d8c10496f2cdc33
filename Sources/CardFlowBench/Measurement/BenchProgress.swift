/// How far a run is, for a progress bar.
public struct BenchProgress: Sendable, Hashable {
    /// What is running ("latency", "sweep 128 B command", "ops: read 32 B plain").
    public var phase: String
    /// 0…1 of the planned work.
    public var fraction: Double
    /// Samples measured so far in this phase.
    public var samples: Int

    public init(phase: String, fraction: Double, samples: Int) {
        self.phase = phase
        self.fraction = min(max(fraction, 0), 1)
        self.samples = samples
    }
}
