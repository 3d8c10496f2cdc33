/// Why a ``CommandAPDU`` cannot be built from the given field values.
///
/// ISO/IEC 7816-4 bounds the data field by the largest extended Lc and the expected response
/// length by the largest extended Le, so values outside those bounds cannot be encoded at all.
public enum APDULengthError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The data field has more than ``CommandAPDU/maxDataCount`` (65535) bytes.
    case dataTooLong(count: Int)
    /// The expected response length is outside `1...65536`; use `nil` for "no Le field".
    case expectedLengthOutOfRange(Int)

    public var description: String {
        switch self {
        case .dataTooLong(let count):
            return "command data has \(count) bytes; at most \(CommandAPDU.maxDataCount) fit"
        case .expectedLengthOutOfRange(let le):
            return
                "expected response length \(le) is outside 1...\(CommandAPDU.maxExpectedLength) (nil means no Le field)"
        }
    }
}
