import CardFlowCCIDProtocol

/// One CCID message as a pcscd + libccid log shows it (`-> 000000 6F 05 00 …` or
/// `<- 000000 80 02 00 …`): the bytes on the bulk pipe, checked to be a whole message.
public struct RecordedFrame: Sendable, Hashable, CustomStringConvertible {
    /// Which way the message went.
    public enum Direction: Sendable, Hashable {
        /// Host to reader (bulk-OUT, libccid's `->`).
        case bulkOut
        /// Reader to host (bulk-IN, libccid's `<-`).
        case bulkIn
    }

    /// Which way the message went.
    public let direction: Direction
    /// libccid's reader index, the six digits after the arrow (`000001` for the second reader or
    /// interface pcscd opened); not part of the message.
    public let readerIndex: Int
    /// The whole message: 10-byte header and dwLength bytes of payload.
    public let bytes: [UInt8]

    /// Checks that `bytes` is one whole CCID message: a header, a message type of the right
    /// direction, and a dwLength that counts exactly the bytes after the header.
    ///
    /// - Throws: ``/CardFlowCCIDProtocol/CCIDFrameError`` saying what is wrong.
    public init(direction: Direction, readerIndex: Int, bytes: [UInt8]) throws(CCIDFrameError) {
        guard bytes.count >= ccidHeaderLength else { throw .truncatedHeader(received: bytes.count) }
        guard let type = CCIDMessageType(rawValue: bytes[0]), type.isCommand == (direction == .bulkOut) else {
            throw .unknownMessageType(bytes[0])
        }
        let declared = Self.declaredLength(bytes)
        guard declared == bytes.count - ccidHeaderLength else {
            throw .lengthMismatch(declared: declared, received: bytes.count - ccidHeaderLength)
        }
        self.direction = direction
        self.readerIndex = readerIndex
        self.bytes = bytes
    }

    /// dwLength of a message whose header is complete.
    static func declaredLength(_ bytes: [UInt8]) -> Int {
        Int(bytes[1]) | Int(bytes[2]) << 8 | Int(bytes[3]) << 16 | Int(bytes[4]) << 24
    }

    /// bMessageType (valid for the direction: checked at init).
    public var messageType: CCIDMessageType { CCIDMessageType(rawValue: bytes[0])! }
    /// bSlot.
    public var slot: UInt8 { bytes[5] }
    /// bSeq.
    public var sequence: UInt8 { bytes[6] }
    /// The bytes after the header.
    public var payload: ArraySlice<UInt8> { bytes[ccidHeaderLength...] }

    public var description: String {
        (direction == .bulkOut ? "-> " : "<- ") + bytes.map(hexByte).joined(separator: " ")
    }
}

/// Two upper-case hex digits.
func hexByte(_ byte: UInt8) -> String {
    let digits = Array("0123456789ABCDEF")
    return String([digits[Int(byte >> 4)], digits[Int(byte & 0x0F)]])
}
