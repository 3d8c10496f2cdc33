/// What is known about one reader model and firmware: quirks for the driver, corrections to its
/// class descriptor, and warnings for the user. ``CCIDReaderQuirkTable/lookup(vendorID:productID:bcdDevice:)``
/// produces it.
public struct CCIDReaderQuirkProfile: Sendable, Hashable {
    /// The reader model's name in the table, nil for readers the table does not know.
    public var model: String?
    /// Driver quirks (merged into ``CCIDDriverConfiguration/quirks``).
    public var quirks: CCIDQuirks
    /// The exchange level the firmware really uses, when it differs from the descriptor.
    public var exchangeLevelOverride: CCIDExchangeLevelOverride?
    /// bPINSupport to use instead of the descriptor's (readers that announce a PIN pad they lack).
    public var pinSupportOverride: UInt8?
    /// A longer read timeout for the first GetSlotStatus after opening, for readers that answer
    /// it slowly while no card is present (pcsc-lite `ccid_open_hack_pre()`).
    public var initialStatusTimeout: Duration?
    /// The highest data rate (bps) to run a card at, below the descriptor's dwMaxDataRate: the
    /// rates above it are left out of the speed choice (pcsc-lite `ccid_open_hack_pre()`).
    public var maximumDataRate: UInt32?
    /// Known firmware problems of this particular reader, for the user.
    public var warnings: [String]

    public init(
        model: String? = nil, quirks: CCIDQuirks = [], exchangeLevelOverride: CCIDExchangeLevelOverride? = nil,
        pinSupportOverride: UInt8? = nil, initialStatusTimeout: Duration? = nil, maximumDataRate: UInt32? = nil,
        warnings: [String] = []
    ) {
        self.model = model
        self.quirks = quirks
        self.exchangeLevelOverride = exchangeLevelOverride
        self.pinSupportOverride = pinSupportOverride
        self.initialStatusTimeout = initialStatusTimeout
        self.maximumDataRate = maximumDataRate
        self.warnings = warnings
    }

    /// The descriptor with the corrections applied (exchange level, bPINSupport, dwMaxDataRate).
    public func applied(to descriptor: CCIDClassDescriptor) -> CCIDClassDescriptor {
        var corrected = descriptor
        if let exchangeLevelOverride { corrected.features = exchangeLevelOverride.applied(to: corrected.features) }
        if let pinSupportOverride { corrected.pinSupport = pinSupportOverride }
        if let maximumDataRate { corrected.maxDataRate = min(corrected.maxDataRate, maximumDataRate) }
        return corrected
    }

    /// The configuration with this profile's quirks added.
    public func applied(to configuration: CCIDDriverConfiguration) -> CCIDDriverConfiguration {
        var adjusted = configuration
        adjusted.quirks.formUnion(quirks)
        return adjusted
    }
}
