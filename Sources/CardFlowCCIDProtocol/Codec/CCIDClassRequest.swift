/// The CCID class-specific control requests (CCID 5.3), addressed to the interface.
public enum CCIDClassRequest: Sendable, Hashable {
    /// First half of the abort handshake: names the bSlot and bSeq of the command to abort.
    case abort(slot: UInt8, sequence: UInt8)
    /// Asks for `count` supported clock frequencies (bNumClockSupported).
    case getClockFrequencies(count: Int)
    /// Asks for `count` supported data rates (bNumDataRatesSupported).
    case getDataRates(count: Int)

    public static let abortRequest: UInt8 = 0x01
    public static let getClockFrequenciesRequest: UInt8 = 0x02
    public static let getDataRatesRequest: UInt8 = 0x03

    /// The control transfer for the interface numbered `interface`.
    public func controlRequest(interface: UInt8) -> USBControlRequest {
        switch self {
        case .abort(let slot, let sequence):
            USBControlRequest(
                requestType: 0x21, request: Self.abortRequest,
                value: UInt16(sequence) << 8 | UInt16(slot), index: UInt16(interface))
        case .getClockFrequencies(let count):
            USBControlRequest(
                requestType: 0xA1, request: Self.getClockFrequenciesRequest, value: 0,
                index: UInt16(interface), length: UInt16(clamping: count * 4))
        case .getDataRates(let count):
            USBControlRequest(
                requestType: 0xA1, request: Self.getDataRatesRequest, value: 0,
                index: UInt16(interface), length: UInt16(clamping: count * 4))
        }
    }

    /// Recognises a class request on the reader side (nil for anything else).
    public init?(_ request: USBControlRequest) {
        switch (request.requestType, request.request) {
        case (0x21, Self.abortRequest):
            self = .abort(
                slot: UInt8(truncatingIfNeeded: request.value), sequence: UInt8(truncatingIfNeeded: request.value >> 8))
        case (0xA1, Self.getClockFrequenciesRequest): self = .getClockFrequencies(count: Int(request.length) / 4)
        case (0xA1, Self.getDataRatesRequest): self = .getDataRates(count: Int(request.length) / 4)
        default: return nil
        }
    }

    /// Decodes the array of little-endian 32-bit values GET_CLOCK_FREQUENCIES and GET_DATA_RATES
    /// return (a trailing partial value is ignored).
    public static func decodeValues(_ bytes: [UInt8]) -> [UInt32] {
        stride(from: 0, to: bytes.count - bytes.count % 4, by: 4).map { bytes.littleEndianUInt32(at: $0) }
    }

    /// Encodes values as GET_CLOCK_FREQUENCIES and GET_DATA_RATES return them.
    public static func encodeValues(_ values: [UInt32]) -> [UInt8] {
        var bytes: [UInt8] = []
        for value in values { bytes.appendLittleEndian(value) }
        return bytes
    }
}
