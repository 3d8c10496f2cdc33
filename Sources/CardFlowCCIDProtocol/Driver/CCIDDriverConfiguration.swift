/// Timeouts, bounds and reader quirks of a ``CCIDDriver``.
public struct CCIDDriverConfiguration: Sendable, Hashable {
    /// Read timeout of an ordinary command (pcsc-lite CCID: 3 s).
    public var readTimeout: Duration = .seconds(3)
    /// Read timeout of IccPowerOn (activating a card can take long).
    public var powerOnTimeout: Duration = .seconds(10)
    /// Write timeout of bulk-OUT transfers.
    public var writeTimeout: Duration = .seconds(5)
    /// How many time-extension frames one command may receive before the driver gives up.
    public var maxTimeExtensions: Int = 64
    /// Bound on one whole driver operation: an APDU with its chaining, T=1 blocks, CCID time
    /// extensions and T=1 S(WTX) requests, or a power-on with its T=1 setup. However often the
    /// reader or card asks for more time, the driver stops waiting after this long, aborts the
    /// command (CCID Abort handshake, so the reader stays usable) and throws
    /// ``CCIDDriverError/exchangeTimeLimitExceeded(limit:during:)``. The per-read timeouts and
    /// extension counts alone would allow hours (64 extensions × 254 × 3 s); five minutes leave
    /// room for slow on-card key generation. The limit runs from the operation's first message
    /// (a wait for one of the reader's busy slots, bMaxCCIDBusySlots, included); the wait for
    /// earlier operations on the same slot does not count.
    public var exchangeTimeLimit: Duration = .seconds(300)
    /// Frames with a wrong bSeq/bSlot discarded before the exchange fails (pcsc-lite: 10).
    public var maxDiscardedFrames: Int = 10
    /// Largest response APDU accepted over extended chaining.
    public var maxResponseLength: Int = 65_538
    /// Bound on the number of T=1 blocks one APDU may take.
    public var maxT1Blocks: Int = 4096
    /// Time allowed for the abort handshake after a cancelled transfer.
    public var abortTimeout: Duration = .seconds(1)
    /// Reader quirks.
    public var quirks: CCIDQuirks = []
    /// The transmission protocol asked for when a contact card is powered on (T=1 when card
    /// and reader offer it, by default). Decides T=0 or T=1 at TPDU level and the
    /// SetParameters protocol at every level.
    public var protocolPreference: ProtocolPreference = .automatic
    /// Bounds on the GET RESPONSE and re-issued commands of one T=0 exchange at TPDU level.
    public var t0Limits = T0ExchangeLimits()

    public init() {}
}

/// Behaviours of real readers that deviate from the CCID specification.
public struct CCIDQuirks: OptionSet, Sendable, Hashable {
    public let rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }

    /// The reader may answer with the previous command's bSeq (ACR122U after writes > 64 bytes).
    public static let acceptsPreviousSequence = CCIDQuirks(rawValue: 1 << 0)
    /// The reader must not receive SET_INTERFACE (ACR122U).
    public static let noSetInterface = CCIDQuirks(rawValue: 1 << 1)
    /// The host must not send a PPS request through the reader (O2Micro Oz776: pcsc-lite's driver
    /// logs "PPS not supported on O2Micro readers"): the card keeps its default protocol and speed.
    public static let noPPS = CCIDQuirks(rawValue: 1 << 2)
}
