import CardFlowCCIDProtocol

/// Identity, capabilities and behaviour of a simulated CCID reader.
public struct VirtualReaderConfiguration: Sendable {
    /// Product name, as the reader's iProduct / iInterface strings show it.
    public var name: String
    public var manufacturer: String
    public var vendorID: UInt16
    public var productID: UInt16
    public var bcdDevice: UInt16
    public var serialNumber: String?
    /// The CCID class descriptor the reader presents; it decides exchange level, message size,
    /// slots and protocols.
    public var descriptor: CCIDClassDescriptor
    /// Whether the reader has an interrupt-IN endpoint (card events).
    public var hasInterruptEndpoint: Bool
    /// Time the reader takes (zero by default).
    public var timing: TimingModel
    /// Seed for everything random (garbled responses).
    public var seed: UInt64
    /// bError the reader leaves in successful answers (the ACR122U sends 0x81); 0 normally.
    public var errorCodeOnSuccess: UInt8
    /// Answer to an empty PC_to_RDR_Escape (firmware version string, like ACS readers).
    public var firmwareVersion: String
    /// Seeded misbehaviour on top of injected faults (nil: the reader behaves).
    public var chaos: ReaderChaos? = nil
    /// Time-extension frames (bStatus 0x80, bError 1) the reader sends before every answer to a
    /// card exchange (XfrBlock, Secure), as a reader with a slow card does for each command; 0:
    /// none. A standing behaviour, unlike ``ReaderFault/timeExtensions(count:multiplier:)``.
    public var timeExtensionsPerExchange = 0
    /// The answer to GET_DATA_RATES (a mimicked reader's `Support N bps` list); nil answers
    /// bNumDataRatesSupported copies of dwDataRate.
    public var supportedDataRates: [UInt32]? = nil
    /// Character-level readers: how the card behaves on the I/O line (well by default).
    public var characterLine = CharacterLineBehaviour()

    public init(
        name: String = "CardFlow Virtual Reader", manufacturer: String = "CardFlow",
        vendorID: UInt16 = 0x072F, productID: UInt16 = 0x223E, bcdDevice: UInt16 = 0x0206,
        serialNumber: String? = nil, descriptor: CCIDClassDescriptor = VirtualReaderConfiguration.defaultDescriptor,
        hasInterruptEndpoint: Bool = true, timing: TimingModel = .zero, seed: UInt64 = 0,
        errorCodeOnSuccess: UInt8 = 0, firmwareVersion: String = "CardFlowSim 1.0"
    ) {
        self.name = name
        self.manufacturer = manufacturer
        self.vendorID = vendorID
        self.productID = productID
        self.bcdDevice = bcdDevice
        self.serialNumber = serialNumber
        self.descriptor = descriptor
        self.hasInterruptEndpoint = hasInterruptEndpoint
        self.timing = timing
        self.seed = seed
        self.errorCodeOnSuccess = errorCodeOnSuccess
        self.firmwareVersion = firmwareVersion
    }

    /// A contactless reader at short-and-extended APDU level, one slot, T=1, 271-byte messages
    /// (so extended APDUs exercise CCID chaining), reader-side parameter negotiation.
    public static let defaultDescriptor = CCIDClassDescriptor(
        features: [.automaticParameterNegotiation, .extendedAPDULevel], maxMessageLength: 271)

    /// A reader of the given exchange level with otherwise default settings.
    public static func level(_ level: CCIDExchangeLevel, maxMessageLength: UInt32 = 271) -> VirtualReaderConfiguration {
        var features: CCIDFeatures = [.automaticParameterNegotiation]
        switch level {
        case .character: break
        case .tpdu: features = [.automaticParameterConfiguration, .automaticVoltageSelection, .tpduLevel]
        case .shortAPDU: features.insert(.shortAPDULevel)
        case .extendedAPDU: features.insert(.extendedAPDULevel)
        }
        let descriptor = CCIDClassDescriptor(features: features, maxMessageLength: maxMessageLength)
        return VirtualReaderConfiguration(descriptor: descriptor)
    }
}
