/// Why bytes (or hex text) are not a well-formed APDU as ISO/IEC 7816-4 section 5.1 defines it.
public enum APDUParseError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The hex text could not be turned into bytes.
    case invalidHex(HexParseError)
    /// A command APDU needs the 4 header bytes CLA INS P1 P2; only `byteCount` were given.
    case commandTooShort(byteCount: Int)
    /// Lc announces `declared` data bytes but only `available` bytes follow it.
    case dataLengthMismatch(declared: Int, available: Int)
    /// The body starts with `00` and more bytes follow, which makes it an extended length field
    /// (`00 XX XX`), but the body has only `byteCount` bytes. A short Lc of `00` is not valid.
    case incompleteExtendedLength(byteCount: Int)
    /// An extended Lc field reads `00 00 00`; a data field, when present, has at least one byte.
    case zeroExtendedLc
    /// The data field of an extended command is followed by 1 byte; an extended Le has 2 bytes.
    case incompleteExtendedLe
    /// `count` bytes follow the Le field, where the APDU must end.
    case trailingBytes(count: Int)
    /// A response APDU needs at least the 2 status bytes SW1 SW2; only `byteCount` were given.
    case responseTooShort(byteCount: Int)

    public var description: String {
        switch self {
        case .invalidHex(let error):
            return error.description
        case .commandTooShort(let byteCount):
            return "command APDU has \(byteCount) bytes; need 4 header bytes (CLA INS P1 P2)"
        case .dataLengthMismatch(let declared, let available):
            return "Lc says \(declared) data bytes but \(available) follow"
        case .incompleteExtendedLength(let byteCount):
            return
                "body of \(byteCount) bytes starts with 00: a short Lc cannot be 00 and an extended length needs 3 bytes (00 XX XX)"
        case .zeroExtendedLc:
            return "extended Lc is 0; a data field has at least 1 byte"
        case .incompleteExtendedLe:
            return "extended Le needs 2 bytes but 1 follows the data"
        case .trailingBytes(let count):
            return "\(count) unexpected bytes after the Le field"
        case .responseTooShort(let byteCount):
            return "response APDU has \(byteCount) bytes; need 2 status bytes (SW1 SW2)"
        }
    }
}

extension APDUParseError {
    /// The bytes of APDU hex text; bad text becomes ``invalidHex(_:)``.
    static func bytes(hex text: String) throws(APDUParseError) -> [UInt8] {
        do {
            return try [UInt8](hex: text)
        } catch {
            throw .invalidHex(error)
        }
    }
}
