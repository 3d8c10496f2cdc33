/// dwFeatures of the CCID class descriptor (CCID 5.1).
public struct CCIDFeatures: OptionSet, Sendable, Hashable, CustomStringConvertible {
    public let rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }

    public static let automaticParameterConfiguration = CCIDFeatures(rawValue: 0x0000_0002)
    public static let automaticActivation = CCIDFeatures(rawValue: 0x0000_0004)
    public static let automaticVoltageSelection = CCIDFeatures(rawValue: 0x0000_0008)
    public static let automaticClockChange = CCIDFeatures(rawValue: 0x0000_0010)
    public static let automaticBaudRateChange = CCIDFeatures(rawValue: 0x0000_0020)
    /// The reader negotiates parameters itself: the host sends neither PPS nor SetParameters.
    public static let automaticParameterNegotiation = CCIDFeatures(rawValue: 0x0000_0040)
    public static let automaticPPS = CCIDFeatures(rawValue: 0x0000_0080)
    public static let canStopClock = CCIDFeatures(rawValue: 0x0000_0100)
    public static let nadAccepted = CCIDFeatures(rawValue: 0x0000_0200)
    /// The reader exchanges IFSD itself: the host must not send S(IFS request).
    public static let automaticIFSDExchange = CCIDFeatures(rawValue: 0x0000_0400)
    public static let tpduLevel = CCIDFeatures(rawValue: 0x0001_0000)
    public static let shortAPDULevel = CCIDFeatures(rawValue: 0x0002_0000)
    public static let extendedAPDULevel = CCIDFeatures(rawValue: 0x0004_0000)
    public static let usbWakeUp = CCIDFeatures(rawValue: 0x0010_0000)

    public var exchangeLevel: CCIDExchangeLevel { CCIDExchangeLevel(features: self) }

    public var description: String {
        let hex = String(rawValue, radix: 16, uppercase: true)
        return "0x" + String(repeating: "0", count: max(0, 8 - hex.count)) + hex
    }
}

/// dwProtocols of the CCID class descriptor.
public struct CCIDProtocols: OptionSet, Sendable, Hashable {
    public let rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }
    public static let t0 = CCIDProtocols(rawValue: 1)
    public static let t1 = CCIDProtocols(rawValue: 2)

    /// Names such as `["T=0", "T=1"]`.
    public var names: [String] {
        var names: [String] = []
        if contains(.t0) { names.append("T=0") }
        if contains(.t1) { names.append("T=1") }
        return names
    }
}
