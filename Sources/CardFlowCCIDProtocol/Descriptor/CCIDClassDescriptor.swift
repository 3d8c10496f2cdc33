/// The 54-byte CCID class descriptor (type 0x21) of a CCID interface (CCID 5.1).
///
/// ```swift
/// let descriptor = try CCIDClassDescriptor(bytes: interfaceExtra)
/// descriptor.exchangeLevel          // .shortAPDU
/// descriptor.maxMessageLength       // 271
/// ```
public struct CCIDClassDescriptor: Sendable, Hashable {
    public static let length = 54
    public static let descriptorType: UInt8 = 0x21

    public var bcdCCID: UInt16
    public var maxSlotIndex: UInt8
    public var voltageSupport: UInt8
    public var protocols: CCIDProtocols
    /// kHz.
    public var defaultClock: UInt32
    /// kHz.
    public var maximumClock: UInt32
    public var numClockSupported: UInt8
    /// bps.
    public var dataRate: UInt32
    /// bps.
    public var maxDataRate: UInt32
    public var numDataRatesSupported: UInt8
    public var maxIFSD: UInt32
    public var synchProtocols: UInt32
    public var mechanical: UInt32
    public var features: CCIDFeatures
    /// dwMaxCCIDMessageLength: the largest whole message, header included.
    public var maxMessageLength: UInt32
    public var classGetResponse: UInt8
    public var classEnvelope: UInt8
    public var lcdLayout: UInt16
    public var pinSupport: UInt8
    public var maxBusySlots: UInt8

    public init(
        bcdCCID: UInt16 = 0x0110, maxSlotIndex: UInt8 = 0, voltageSupport: UInt8 = 0x07,
        protocols: CCIDProtocols = .t1, defaultClock: UInt32 = 4000, maximumClock: UInt32 = 4000,
        numClockSupported: UInt8 = 0, dataRate: UInt32 = 10752, maxDataRate: UInt32 = 250_000,
        numDataRatesSupported: UInt8 = 0, maxIFSD: UInt32 = 254, synchProtocols: UInt32 = 0,
        mechanical: UInt32 = 0, features: CCIDFeatures, maxMessageLength: UInt32,
        classGetResponse: UInt8 = 0, classEnvelope: UInt8 = 0, lcdLayout: UInt16 = 0,
        pinSupport: UInt8 = 0, maxBusySlots: UInt8 = 1
    ) {
        self.bcdCCID = bcdCCID
        self.maxSlotIndex = maxSlotIndex
        self.voltageSupport = voltageSupport
        self.protocols = protocols
        self.defaultClock = defaultClock
        self.maximumClock = maximumClock
        self.numClockSupported = numClockSupported
        self.dataRate = dataRate
        self.maxDataRate = maxDataRate
        self.numDataRatesSupported = numDataRatesSupported
        self.maxIFSD = maxIFSD
        self.synchProtocols = synchProtocols
        self.mechanical = mechanical
        self.features = features
        self.maxMessageLength = maxMessageLength
        self.classGetResponse = classGetResponse
        self.classEnvelope = classEnvelope
        self.lcdLayout = lcdLayout
        self.pinSupport = pinSupport
        self.maxBusySlots = maxBusySlots
    }

    /// Parses the descriptor. Only the first 54 bytes are read; extra bytes after it are allowed
    /// (some readers append other class descriptors).
    public init(bytes: [UInt8]) throws(CCIDDescriptorError) {
        guard bytes.count >= Self.length else { throw .tooShort(bytes.count) }
        guard bytes[0] == Self.length else { throw .wrongLength(bytes[0]) }
        // Some real readers (5 of the pcsc-lite corpus) report type 0xFF; pcsc-lite goes by length.
        guard bytes[1] == Self.descriptorType || bytes[1] == 0xFF else { throw .wrongType(bytes[1]) }
        bcdCCID = bytes.littleEndianUInt16(at: 2)
        maxSlotIndex = bytes[4]
        voltageSupport = bytes[5]
        protocols = CCIDProtocols(rawValue: bytes.littleEndianUInt32(at: 6))
        defaultClock = bytes.littleEndianUInt32(at: 10)
        maximumClock = bytes.littleEndianUInt32(at: 14)
        numClockSupported = bytes[18]
        dataRate = bytes.littleEndianUInt32(at: 19)
        maxDataRate = bytes.littleEndianUInt32(at: 23)
        numDataRatesSupported = bytes[27]
        maxIFSD = bytes.littleEndianUInt32(at: 28)
        synchProtocols = bytes.littleEndianUInt32(at: 32)
        mechanical = bytes.littleEndianUInt32(at: 36)
        features = CCIDFeatures(rawValue: bytes.littleEndianUInt32(at: 40))
        maxMessageLength = bytes.littleEndianUInt32(at: 44)
        classGetResponse = bytes[48]
        classEnvelope = bytes[49]
        lcdLayout = bytes.littleEndianUInt16(at: 50)
        pinSupport = bytes[52]
        maxBusySlots = bytes[53]
        // A message must at least hold its header plus one byte, or no exchange is possible.
        guard maxMessageLength > UInt32(ccidHeaderLength) else { throw .messageLengthTooSmall(maxMessageLength) }
    }

    /// The 54 wire bytes.
    public func encoded() -> [UInt8] {
        var bytes: [UInt8] = [UInt8(Self.length), Self.descriptorType]
        bytes.reserveCapacity(Self.length)
        bytes.appendLittleEndian(bcdCCID)
        bytes.append(maxSlotIndex)
        bytes.append(voltageSupport)
        bytes.appendLittleEndian(protocols.rawValue)
        bytes.appendLittleEndian(defaultClock)
        bytes.appendLittleEndian(maximumClock)
        bytes.append(numClockSupported)
        bytes.appendLittleEndian(dataRate)
        bytes.appendLittleEndian(maxDataRate)
        bytes.append(numDataRatesSupported)
        bytes.appendLittleEndian(maxIFSD)
        bytes.appendLittleEndian(synchProtocols)
        bytes.appendLittleEndian(mechanical)
        bytes.appendLittleEndian(features.rawValue)
        bytes.appendLittleEndian(maxMessageLength)
        bytes.append(classGetResponse)
        bytes.append(classEnvelope)
        bytes.appendLittleEndian(lcdLayout)
        bytes.append(pinSupport)
        bytes.append(maxBusySlots)
        return bytes
    }

    /// Finds the descriptor of a USB interface the way the pcsc-lite CCID driver does: in the
    /// interface's extra bytes, or (O2Micro, Reiner SCT quirk) in the last endpoint's extra
    /// bytes. Interface class 0x0B is CCID; vendor class 0xFF is accepted only with a 54-byte
    /// descriptor, because type 0x21 is also HID's.
    public static func locate(
        interfaceClass: UInt8, interfaceExtra: [UInt8],
        endpointExtras: [[UInt8]]
    ) throws(CCIDDescriptorError) -> CCIDClassDescriptor {
        guard interfaceClass == 0x0B || interfaceClass == 0xFF else { throw .notCCIDInterface(interfaceClass) }
        let candidate = interfaceExtra.isEmpty ? (endpointExtras.last ?? []) : interfaceExtra
        guard !candidate.isEmpty else { throw .missing }
        if interfaceClass == 0xFF, candidate.count != Self.length { throw .notCCIDInterface(interfaceClass) }
        return try CCIDClassDescriptor(bytes: candidate)
    }

    /// The exchange level the driver uses.
    public var exchangeLevel: CCIDExchangeLevel { features.exchangeLevel }
    /// Number of slots.
    public var slotCount: Int { Int(maxSlotIndex) + 1 }
    /// The largest APDU or TPDU one XfrBlock can carry (within ``usableMaxMessageLength``).
    public var maxPayloadPerMessage: Int { usableMaxMessageLength - ccidHeaderLength }

    /// The longest CCID message any exchange needs: the 10-byte header plus the longest extended
    /// command APDU (4 header bytes, 3 of Lc, 65,535 of data, 2 of Le = 65,544). A larger
    /// dwMaxCCIDMessageLength (legal on the wire, up to 0xFFFFFFFF) buys nothing but read
    /// buffers of up to 4 GiB, so the driver clamps to this, as pcsc-lite's CCID driver reads
    /// into a fixed buffer of about 64 KiB whatever the descriptor says.
    public static let maximumUsableMessageLength = ccidHeaderLength + 65_544

    /// dwMaxCCIDMessageLength clamped to ``maximumUsableMessageLength``: what buffers and
    /// message splitting are sized by.
    public var usableMaxMessageLength: Int { min(Int(maxMessageLength), Self.maximumUsableMessageLength) }

    /// True when dwMaxCCIDMessageLength exceeds what any exchange needs and is clamped
    /// (worth a warning: the reader's firmware reports nonsense).
    public var isMessageLengthClamped: Bool { Int(maxMessageLength) > Self.maximumUsableMessageLength }
}

/// Why a CCID class descriptor could not be used.
public enum CCIDDescriptorError: Error, Sendable, Hashable, CustomStringConvertible {
    case tooShort(Int)
    case wrongLength(UInt8)
    case wrongType(UInt8)
    case missing
    case notCCIDInterface(UInt8)
    case messageLengthTooSmall(UInt32)

    public var description: String {
        switch self {
        case .tooShort(let count): "CCID class descriptor has \(count) byte(s), needs 54"
        case .wrongLength(let length): "CCID class descriptor bLength is \(length), expected 54"
        case .wrongType(let type): "CCID class descriptor type is 0x\(hex2(type)), expected 0x21"
        case .missing: "the interface carries no CCID class descriptor"
        case .notCCIDInterface(let cls): "interface class 0x\(hex2(cls)) is not a CCID interface"
        case .messageLengthTooSmall(let length): "dwMaxCCIDMessageLength \(length) cannot hold a message"
        }
    }
}
