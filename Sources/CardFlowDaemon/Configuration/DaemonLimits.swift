/// Bounds on what the daemon's clients and counterparts can make it hold: every queue fed from
/// outside has one, and going beyond it gives a typed error rather than more memory.
public struct DaemonLimits: Sendable, Hashable {
    /// Control-socket connections open at once; a further one is answered `tooManyConnections`
    /// and closed.
    public var maximumConnections: Int
    /// Requests of one connection in flight at once (streams included); more are answered `busy`.
    public var maximumRequestsPerConnection: Int
    /// Longest control-socket line in bytes; a longer one is answered `lineTooLong` and dropped
    /// as it arrives.
    public var maximumLineLength: Int
    /// Deepest nesting of arrays and objects in a control request; deeper is answered `tooDeep`
    /// after a linear scan, before any recursive decoding.
    public var maximumJSONNesting: Int
    /// Progress events one job writes to the job log; later ones are counted in a single
    /// `eventsTruncated` record (the job's end and its last step are still recorded).
    public var maximumEventsPerJob: Int

    public init(
        maximumConnections: Int = 64, maximumRequestsPerConnection: Int = 64, maximumLineLength: Int = 1 << 20,
        maximumJSONNesting: Int = 32, maximumEventsPerJob: Int = 2_000
    ) {
        self.maximumConnections = max(1, maximumConnections)
        self.maximumRequestsPerConnection = max(1, maximumRequestsPerConnection)
        self.maximumLineLength = max(64, maximumLineLength)
        self.maximumJSONNesting = max(2, maximumJSONNesting)
        self.maximumEventsPerJob = max(1, maximumEventsPerJob)
    }
}
