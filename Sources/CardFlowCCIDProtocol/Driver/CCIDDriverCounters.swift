/// Events of a driver's life that explain slow exchanges, counted since the driver was made:
/// what `cardctl bench` names as the causes of outliers. Take a copy before and after a span
/// and subtract (``since(_:)``).
public struct CCIDDriverCounters: Sendable, Hashable {
    /// Messages sent on bulk-OUT.
    public var messagesSent = 0
    /// Time extensions (`bmCommandStatus` 2) the reader sent while working on a command.
    public var timeExtensions = 0
    /// Frames with a stale `bSeq`/`bSlot` that were dropped.
    public var discardedFrames = 0
    /// CCID Abort handshakes (cancellation, exchange time limit).
    public var aborts = 0
    /// T=1 blocks sent again, or R-blocks sent, to recover from invalid blocks and time-outs
    /// (TPDU and character levels).
    public var t1Recoveries = 0

    public init() {}

    /// What happened between `earlier` and this copy.
    public func since(_ earlier: CCIDDriverCounters) -> CCIDDriverCounters {
        var difference = CCIDDriverCounters()
        difference.messagesSent = messagesSent - earlier.messagesSent
        difference.timeExtensions = timeExtensions - earlier.timeExtensions
        difference.discardedFrames = discardedFrames - earlier.discardedFrames
        difference.aborts = aborts - earlier.aborts
        difference.t1Recoveries = t1Recoveries - earlier.t1Recoveries
        return difference
    }
}
