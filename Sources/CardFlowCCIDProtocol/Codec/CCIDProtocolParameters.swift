/// The protocol data structure of SetParameters / Parameters messages (CCID 6.1.7).
public enum CCIDProtocolParameters: Sendable, Hashable {
    /// T=0: bmFindexDindex, bmTCCKST0, bGuardTimeT0, bWaitingIntegerT0, bClockStop.
    case t0(findexDindex: UInt8, tcckst: UInt8, guardTime: UInt8, waitingInteger: UInt8, clockStop: UInt8)
    /// T=1: bmFindexDindex, bmTCCKST1, bGuardTimeT1, bmWaitingIntegersT1, bClockStop, bIFSC, bNadValue.
    case t1(
        findexDindex: UInt8, tcckst: UInt8, guardTime: UInt8, waitingIntegers: UInt8, clockStop: UInt8, ifsc: UInt8,
        nad: UInt8)
    /// Any other protocol number (2-wire, 3-wire, I2C) with its raw bytes.
    case other(protocolNumber: UInt8, data: [UInt8])

    /// The pcsc-lite CCID driver's T=1 defaults (`11 10 00 4D 00 20 00`), sent unchanged for
    /// contactless PC/SC part 3 ATRs.
    public static let defaultT1 = CCIDProtocolParameters.t1(
        findexDindex: 0x11, tcckst: 0x10, guardTime: 0x00, waitingIntegers: 0x4D, clockStop: 0x00, ifsc: 0x20, nad: 0x00
    )

    /// The pcsc-lite CCID driver's T=0 defaults (`11 00 00 0A 00`).
    public static let defaultT0 = CCIDProtocolParameters.t0(
        findexDindex: 0x11, tcckst: 0x00, guardTime: 0x00, waitingInteger: 0x0A, clockStop: 0x00)

    /// bProtocolNum.
    public var protocolNumber: UInt8 {
        switch self {
        case .t0: 0
        case .t1: 1
        case .other(let number, _): number
        }
    }

    /// The abProtocolDataStructure bytes.
    public var bytes: [UInt8] {
        switch self {
        case .t0(let fd, let tcc, let guardTime, let wi, let clockStop): [fd, tcc, guardTime, wi, clockStop]
        case .t1(let fd, let tcc, let guardTime, let wi, let clockStop, let ifsc, let nad):
            [fd, tcc, guardTime, wi, clockStop, ifsc, nad]
        case .other(_, let data): data
        }
    }

    /// Decodes a protocol data structure; `type` is only used for error reporting.
    public init(protocolNumber: UInt8, bytes: [UInt8], in type: CCIDMessageType) throws(CCIDFrameError) {
        switch protocolNumber {
        case 0:
            guard bytes.count == 5 else {
                throw .invalidPayloadLength(type, length: bytes.count, expected: "5 for T=0")
            }
            self = .t0(
                findexDindex: bytes[0], tcckst: bytes[1], guardTime: bytes[2], waitingInteger: bytes[3],
                clockStop: bytes[4])
        case 1:
            guard bytes.count == 7 else {
                throw .invalidPayloadLength(type, length: bytes.count, expected: "7 for T=1")
            }
            self = .t1(
                findexDindex: bytes[0], tcckst: bytes[1], guardTime: bytes[2], waitingIntegers: bytes[3],
                clockStop: bytes[4], ifsc: bytes[5], nad: bytes[6])
        case 0x80, 0x81, 0x82:
            self = .other(protocolNumber: protocolNumber, data: bytes)
        default:
            throw .invalidField(type, offset: 7, value: protocolNumber)
        }
    }
}
