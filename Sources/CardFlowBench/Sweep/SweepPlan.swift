/// The sizes a sweep visits and how often it measures each.
public struct SweepPlan: Sendable, Hashable {
    /// Short-APDU sizes: 1, then every `step` bytes, then the probe's largest (255 or 256).
    public var step: Int
    /// Also visit extended sizes (when the reader and the probe carry them).
    public var includeExtended: Bool
    /// The extended sizes to visit (each capped at the probe's largest).
    public var extendedSizes: [Int]
    /// Measured samples per size (the point is their median) and unmeasured ones before.
    public var samplesPerPoint: Int
    public var warmupPerPoint: Int
    /// No size above this (nil: the probe's largest).
    public var maximumSize: Int?

    /// - Parameters:
    ///   - step: the short-size step.
    ///   - includeExtended: whether to visit extended sizes.
    ///   - extendedSizes: which.
    ///   - samplesPerPoint: samples per size.
    ///   - warmupPerPoint: unmeasured round trips per size.
    ///   - maximumSize: no size above this.
    public init(
        step: Int = 16, includeExtended: Bool = false, extendedSizes: [Int] = [512, 1024, 2048, 4096],
        samplesPerPoint: Int = 30, warmupPerPoint: Int = 3, maximumSize: Int? = nil
    ) {
        self.maximumSize = maximumSize
        self.step = max(1, step)
        self.includeExtended = includeExtended
        self.extendedSizes = extendedSizes
        self.samplesPerPoint = max(1, samplesPerPoint)
        self.warmupPerPoint = max(0, warmupPerPoint)
    }

    /// The sizes for a probe whose largest short size is `maximumShort` and largest extended
    /// size is `maximumExtended` (0: none).
    ///
    /// - Parameters:
    ///   - maximumShort: the largest short size.
    ///   - maximumExtended: the largest extended size the reader and probe carry.
    /// - Returns: ascending sizes without repeats.
    public func sizes(maximumShort: Int, maximumExtended: Int) -> [Int] {
        var sizes = [1] + Array(stride(from: step, through: maximumShort, by: step)) + [maximumShort]
        if includeExtended, maximumExtended > maximumShort {
            sizes += extendedSizes.map { min($0, maximumExtended) }.filter { $0 > maximumShort }
        }
        let cap = maximumSize ?? Int.max
        return Array(Set(sizes.filter { $0 >= 1 && $0 <= cap })).sorted()
    }
}
