/// A response APDU (ISO/IEC 7816-4 section 5.1): optional response data followed by SW1 SW2.
public struct ResponseAPDU: Hashable, Sendable, CustomStringConvertible {
    /// The response data field, possibly empty.
    public let data: [UInt8]
    public let sw1: UInt8
    public let sw2: UInt8

    public init(data: [UInt8] = [], sw1: UInt8, sw2: UInt8) {
        self.data = data
        self.sw1 = sw1
        self.sw2 = sw2
    }

    public init(data: [UInt8] = [], statusWord: StatusWord) {
        self.init(data: data, sw1: statusWord.sw1, sw2: statusWord.sw2)
    }

    /// Splits received bytes into data and the last two bytes, SW1 SW2.
    ///
    /// - Throws: ``APDUParseError/responseTooShort(byteCount:)`` for fewer than 2 bytes.
    public init(bytes: [UInt8]) throws(APDUParseError) {
        guard bytes.count >= 2 else { throw .responseTooShort(byteCount: bytes.count) }
        self.init(data: Array(bytes.dropLast(2)), sw1: bytes[bytes.count - 2], sw2: bytes[bytes.count - 1])
    }

    /// Parses a response APDU from hex text such as `"6F 10 ... 90 00"`.
    ///
    /// - Throws: ``APDUParseError/invalidHex(_:)`` for bad text, otherwise as ``init(bytes:)``.
    public init(hex text: String) throws(APDUParseError) {
        try self.init(bytes: try APDUParseError.bytes(hex: text))
    }

    public var statusWord: StatusWord {
        StatusWord(sw1: sw1, sw2: sw2)
    }

    /// The response's bytes: data, then SW1 SW2.
    public func encoded() -> [UInt8] {
        data + [sw1, sw2]
    }

    /// The encoded bytes as spaced hex, e.g. `"6F 00 90 00"`.
    public var description: String {
        encoded().spacedHexString
    }
}
