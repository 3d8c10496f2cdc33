/// The `bMessageType` byte of every CCID bulk message (CCID rev 1.1, sections 6.1 and 6.2).
public enum CCIDMessageType: UInt8, Sendable, CaseIterable, CustomStringConvertible {
    // Bulk-OUT, host to reader.
    case iccPowerOn = 0x62
    case iccPowerOff = 0x63
    case getSlotStatus = 0x65
    case xfrBlock = 0x6F
    case getParameters = 0x6C
    case resetParameters = 0x6D
    case setParameters = 0x61
    case escape = 0x6B
    case iccClock = 0x6E
    case t0APDU = 0x6A
    case secure = 0x69
    case mechanical = 0x71
    case abort = 0x72
    case setDataRateAndClockFrequency = 0x73
    // Bulk-IN, reader to host.
    case dataBlock = 0x80
    case slotStatus = 0x81
    case parameters = 0x82
    case escapeResponse = 0x83
    case dataRateAndClockFrequency = 0x84

    /// True for the messages the host sends.
    public var isCommand: Bool { rawValue < 0x80 }

    /// The response type a reader answers this command with (nil for responses).
    public var responseType: CCIDMessageType? {
        switch self {
        case .iccPowerOn, .xfrBlock, .secure: .dataBlock
        case .iccPowerOff, .getSlotStatus, .iccClock, .t0APDU, .mechanical, .abort: .slotStatus
        case .getParameters, .resetParameters, .setParameters: .parameters
        case .escape: .escapeResponse
        case .setDataRateAndClockFrequency: .dataRateAndClockFrequency
        case .dataBlock, .slotStatus, .parameters, .escapeResponse, .dataRateAndClockFrequency: nil
        }
    }

    public var description: String {
        switch self {
        case .iccPowerOn: "PC_to_RDR_IccPowerOn"
        case .iccPowerOff: "PC_to_RDR_IccPowerOff"
        case .getSlotStatus: "PC_to_RDR_GetSlotStatus"
        case .xfrBlock: "PC_to_RDR_XfrBlock"
        case .getParameters: "PC_to_RDR_GetParameters"
        case .resetParameters: "PC_to_RDR_ResetParameters"
        case .setParameters: "PC_to_RDR_SetParameters"
        case .escape: "PC_to_RDR_Escape"
        case .iccClock: "PC_to_RDR_IccClock"
        case .t0APDU: "PC_to_RDR_T0APDU"
        case .secure: "PC_to_RDR_Secure"
        case .mechanical: "PC_to_RDR_Mechanical"
        case .abort: "PC_to_RDR_Abort"
        case .setDataRateAndClockFrequency: "PC_to_RDR_SetDataRateAndClockFrequency"
        case .dataBlock: "RDR_to_PC_DataBlock"
        case .slotStatus: "RDR_to_PC_SlotStatus"
        case .parameters: "RDR_to_PC_Parameters"
        case .escapeResponse: "RDR_to_PC_Escape"
        case .dataRateAndClockFrequency: "RDR_to_PC_DataRateAndClockFrequency"
        }
    }
}

/// Size of the header every CCID bulk message starts with.
public let ccidHeaderLength = 10

/// The 10-byte header framing shared by both directions: encodes it in front of a payload and
/// checks, on decoding, that `dwLength` matches the transfer and the type suits the direction.
enum CCIDFraming {
    /// Replaces the contents of `bytes` with the message, in its storage when that is large enough
    /// and not shared.
    static func encode(
        type: CCIDMessageType, slot: UInt8, sequence: UInt8,
        fields: (UInt8, UInt8, UInt8), payload: [UInt8], into bytes: inout [UInt8]
    ) {
        bytes.removeAll(keepingCapacity: true)
        bytes.reserveCapacity(ccidHeaderLength + payload.count)
        bytes.append(type.rawValue)
        bytes.appendLittleEndian(UInt32(payload.count))
        bytes.append(slot)
        bytes.append(sequence)
        bytes.append(fields.0)
        bytes.append(fields.1)
        bytes.append(fields.2)
        bytes.append(contentsOf: payload)
    }

    static func decode(_ bytes: [UInt8], commands: Bool) throws(CCIDFrameError) -> (
        type: CCIDMessageType, payload: [UInt8]
    ) {
        let type = try messageType(of: bytes, commands: commands)
        return (type, Array(bytes[ccidHeaderLength...]))
    }

    /// The header checks of ``decode(_:commands:)`` without copying the payload out.
    static func messageType(of bytes: [UInt8], commands: Bool) throws(CCIDFrameError) -> CCIDMessageType {
        guard bytes.count >= ccidHeaderLength else { throw .truncatedHeader(received: bytes.count) }
        let declared = Int(bytes.littleEndianUInt32(at: 1))
        guard declared == bytes.count - ccidHeaderLength else {
            throw .lengthMismatch(declared: declared, received: bytes.count - ccidHeaderLength)
        }
        guard let type = CCIDMessageType(rawValue: bytes[0]), type.isCommand == commands else {
            throw .unknownMessageType(bytes[0])
        }
        return type
    }
}
