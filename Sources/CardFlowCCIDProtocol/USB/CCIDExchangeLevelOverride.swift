/// A reader whose firmware exchanges data at another level than its descriptor announces
/// (pcsc-lite CCID `ccid_open_hack_post()`): the driver must use ``level`` instead.
public struct CCIDExchangeLevelOverride: Sendable, Hashable {
    /// The level to use.
    public var level: CCIDExchangeLevel
    /// Apply only when the descriptor announces this level (nil: always).
    public var whenAnnounced: CCIDExchangeLevel?

    public init(level: CCIDExchangeLevel, whenAnnounced: CCIDExchangeLevel? = nil) {
        self.level = level
        self.whenAnnounced = whenAnnounced
    }

    /// dwFeatures with the exchange-level bits replaced, or unchanged when the condition does
    /// not hold.
    public func applied(to features: CCIDFeatures) -> CCIDFeatures {
        if let whenAnnounced, features.exchangeLevel != whenAnnounced { return features }
        let levelBits: UInt32 =
            switch level {
            case .character: 0
            case .tpdu: CCIDFeatures.tpduLevel.rawValue
            case .shortAPDU: CCIDFeatures.shortAPDULevel.rawValue
            case .extendedAPDU: CCIDFeatures.extendedAPDULevel.rawValue
            }
        return CCIDFeatures(rawValue: features.rawValue & ~0x0007_0000 | levelBits)
    }
}
