import CardFlowHex

/// A CCID message that could not be decoded. Each case says where the bytes are wrong.
public enum CCIDFrameError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Fewer than the 10 header bytes.
    case truncatedHeader(received: Int)
    /// `dwLength` announces more (or fewer) bytes than the transfer carries.
    case lengthMismatch(declared: Int, received: Int)
    /// `bMessageType` is not a CCID message of the expected direction.
    case unknownMessageType(UInt8)
    /// A message whose payload must have a fixed size has another one (`offset` is the CCID
    /// bError convention: 1 = dwLength).
    case invalidPayloadLength(CCIDMessageType, length: Int, expected: String)
    /// A field holds a value the specification does not allow (offset into the message).
    case invalidField(CCIDMessageType, offset: Int, value: UInt8)
    /// The interrupt message is shorter than its type requires.
    case truncatedInterrupt(type: UInt8, received: Int, needed: Int)

    public var description: String {
        switch self {
        case .truncatedHeader(let received):
            "CCID message too short: \(received) byte(s), a header needs \(ccidHeaderLength)"
        case .lengthMismatch(let declared, let received):
            "CCID dwLength says \(declared) byte(s) follow the header but \(received) did"
        case .unknownMessageType(let type):
            "unknown CCID message type 0x\(hex2(type))"
        case .invalidPayloadLength(let type, let length, let expected):
            "\(type) carries \(length) payload byte(s), expected \(expected)"
        case .invalidField(let type, let offset, let value):
            "\(type): invalid value 0x\(hex2(value)) at offset \(offset)"
        case .truncatedInterrupt(let type, let received, let needed):
            "interrupt message 0x\(hex2(type)) has \(received) byte(s), needs \(needed)"
        }
    }
}

/// `0A`: a byte as two upper-case hex digits, for descriptions.
@inline(__always)
func hex2(_ byte: UInt8) -> String {
    HexFormat.digits(byte)
}
