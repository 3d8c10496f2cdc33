/// One USB interface of a reader with its CCID class descriptor, as described by a
/// descriptor dump (see ``ReaderProfile``).
///
/// The CCID fields carry the USB names of the descriptor fields (CCID rev 1.1 §5.1); clocks
/// are in kHz and data rates in bps, as in the binary descriptor.
public struct ReaderInterfaceProfile: Sendable, Hashable, Codable {
    /// `bInterfaceNumber`.
    public var interfaceNumber: UInt8
    /// `bAlternateSetting`.
    public var alternateSetting: UInt8
    /// `bInterfaceClass`: `0x0B` (smart card) or `0xFF` (proprietary, still with a CCID descriptor).
    public var interfaceClass: UInt8
    /// `bInterfaceSubClass`.
    public var interfaceSubClass: UInt8
    /// `bInterfaceProtocol`: 0 CCID, 1 ICCD version A, 2 ICCD version B.
    public var interfaceProtocol: UInt8
    /// `bNumEndpoints`.
    public var numberOfEndpoints: UInt8
    /// The `iInterface` string as the dump shows it, or `nil` when the dump could not get it.
    public var name: String?

    /// `bDescriptorType` of the class descriptor: `0x21`, or `0xFF` for a few proprietary devices.
    public var bDescriptorType: UInt8
    /// `bcdCCID`, for example `0x0110`.
    public var bcdCCID: UInt16
    /// `bMaxSlotIndex` (slots = value + 1).
    public var bMaxSlotIndex: UInt8
    /// `bVoltageSupport` (bit 0 5 V, bit 1 3 V, bit 2 1.8 V).
    public var bVoltageSupport: UInt8
    /// `dwProtocols` (bit 0 T=0, bit 1 T=1).
    public var dwProtocols: UInt32
    /// `dwDefaultClock` in kHz.
    public var dwDefaultClock: UInt32
    /// `dwMaximumClock` in kHz.
    public var dwMaximumClock: UInt32
    /// `bNumClockSupported`.
    public var bNumClockSupported: UInt8
    /// `dwDataRate` in bps.
    public var dwDataRate: UInt32
    /// `dwMaxDataRate` in bps.
    public var dwMaxDataRate: UInt32
    /// `bNumDataRatesSupported`.
    public var bNumDataRatesSupported: UInt8
    /// `dwMaxIFSD`.
    public var dwMaxIFSD: UInt32
    /// `dwSynchProtocols`.
    public var dwSynchProtocols: UInt32
    /// `dwMechanical`.
    public var dwMechanical: UInt32
    /// `dwFeatures` (exchange level in bits 16–18).
    public var dwFeatures: UInt32
    /// `dwMaxCCIDMessageLength` (whole message, 10-byte header included).
    public var dwMaxCCIDMessageLength: UInt32
    /// `bClassGetResponse` (`0xFF` = echo the APDU class).
    public var bClassGetResponse: UInt8
    /// `bClassEnvelope`.
    public var bClassEnvelope: UInt8
    /// `wLcdLayout` (lines << 8 | characters per line).
    public var wLcdLayout: UInt16
    /// `bPINSupport` (bit 0 verify, bit 1 modify).
    public var bPINSupport: UInt8
    /// `bMaxCCIDBusySlots`.
    public var bMaxCCIDBusySlots: UInt8

    /// The dump's own words for the exchange level (for example `"Short APDU level exchange"`,
    /// `"TPDU level exchange"`), without the `02....` bit prefix; `nil` if the dump has none.
    public var declaredExchangeLevelText: String?

    /// The data rates the dump lists (`Support N bps`, what the reader answered to
    /// GET_DATA_RATES); nil when it lists none.
    public var supportedDataRates: [UInt32]?

    /// Creates an interface profile from its fields.
    public init(
        interfaceNumber: UInt8, alternateSetting: UInt8 = 0, interfaceClass: UInt8 = 0x0B,
        interfaceSubClass: UInt8 = 0, interfaceProtocol: UInt8 = 0, numberOfEndpoints: UInt8 = 3,
        name: String? = nil, bDescriptorType: UInt8 = 0x21, bcdCCID: UInt16 = 0x0110,
        bMaxSlotIndex: UInt8 = 0, bVoltageSupport: UInt8 = 0x07, dwProtocols: UInt32 = 0x0002,
        dwDefaultClock: UInt32 = 4000, dwMaximumClock: UInt32 = 4000, bNumClockSupported: UInt8 = 0,
        dwDataRate: UInt32 = 10752, dwMaxDataRate: UInt32 = 250_000, bNumDataRatesSupported: UInt8 = 0,
        dwMaxIFSD: UInt32 = 254, dwSynchProtocols: UInt32 = 0, dwMechanical: UInt32 = 0,
        dwFeatures: UInt32 = 0x0004_0040, dwMaxCCIDMessageLength: UInt32 = 271,
        bClassGetResponse: UInt8 = 0xFF, bClassEnvelope: UInt8 = 0xFF, wLcdLayout: UInt16 = 0,
        bPINSupport: UInt8 = 0, bMaxCCIDBusySlots: UInt8 = 1, declaredExchangeLevelText: String? = nil,
        supportedDataRates: [UInt32]? = nil
    ) {
        self.interfaceNumber = interfaceNumber
        self.alternateSetting = alternateSetting
        self.interfaceClass = interfaceClass
        self.interfaceSubClass = interfaceSubClass
        self.interfaceProtocol = interfaceProtocol
        self.numberOfEndpoints = numberOfEndpoints
        self.name = name
        self.bDescriptorType = bDescriptorType
        self.bcdCCID = bcdCCID
        self.bMaxSlotIndex = bMaxSlotIndex
        self.bVoltageSupport = bVoltageSupport
        self.dwProtocols = dwProtocols
        self.dwDefaultClock = dwDefaultClock
        self.dwMaximumClock = dwMaximumClock
        self.bNumClockSupported = bNumClockSupported
        self.dwDataRate = dwDataRate
        self.dwMaxDataRate = dwMaxDataRate
        self.bNumDataRatesSupported = bNumDataRatesSupported
        self.dwMaxIFSD = dwMaxIFSD
        self.dwSynchProtocols = dwSynchProtocols
        self.dwMechanical = dwMechanical
        self.dwFeatures = dwFeatures
        self.dwMaxCCIDMessageLength = dwMaxCCIDMessageLength
        self.bClassGetResponse = bClassGetResponse
        self.bClassEnvelope = bClassEnvelope
        self.wLcdLayout = wLcdLayout
        self.bPINSupport = bPINSupport
        self.bMaxCCIDBusySlots = bMaxCCIDBusySlots
        self.declaredExchangeLevelText = declaredExchangeLevelText
        self.supportedDataRates = supportedDataRates
    }

    /// The 54-byte CCID class descriptor (`bLength 0x36`, ``bDescriptorType``, then every field
    /// little-endian at its CCID offset), as a virtual reader presents it.
    public var classDescriptorBytes: [UInt8] {
        var bytes: [UInt8] = [0x36, bDescriptorType]
        func append<T: FixedWidthInteger>(_ value: T) {
            withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
        }
        append(bcdCCID)
        append(bMaxSlotIndex)
        append(bVoltageSupport)
        append(dwProtocols)
        append(dwDefaultClock)
        append(dwMaximumClock)
        append(bNumClockSupported)
        append(dwDataRate)
        append(dwMaxDataRate)
        append(bNumDataRatesSupported)
        append(dwMaxIFSD)
        append(dwSynchProtocols)
        append(dwMechanical)
        append(dwFeatures)
        append(dwMaxCCIDMessageLength)
        append(bClassGetResponse)
        append(bClassEnvelope)
        append(wLcdLayout)
        append(bPINSupport)
        append(bMaxCCIDBusySlots)
        return bytes
    }
}
