import CardFlowHex

/// Why parsing hexadecimal text into bytes failed.
public enum HexParseError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The text holds no hex digits at all (it is empty or only whitespace).
    case empty
    /// The text holds an odd number of hex digits, so the last byte is incomplete.
    case oddDigitCount(Int)
    /// The text holds a character that is neither an ASCII hex digit nor whitespace.
    ///
    /// `position` is 1-based and counts characters of the original string, whitespace included,
    /// so it points at what a person sees in an editor.
    case invalidCharacter(Character, position: Int)

    public var description: String {
        switch self {
        case .empty:
            return "hex text is empty"
        case .oddDigitCount(let count):
            return "hex text has an odd number of digits (\(count))"
        case .invalidCharacter(let character, let position):
            return "invalid character \(String(reflecting: String(character))) at position \(position) in hex text"
        }
    }
}

extension Array where Element == UInt8 {
    /// Parses hexadecimal text such as `"00A40400 07 A0000002471001 00"`.
    ///
    /// Upper- and lower-case digits are accepted and whitespace may appear anywhere, also between
    /// the two digits of one byte. There is no `0x` prefix.
    ///
    /// - Throws: ``HexParseError`` when the text is empty, holds a non-hex character, or has an odd
    ///   number of digits.
    public init(hex text: String) throws(HexParseError) {
        // Plain ASCII hex, the usual case, is read as UTF-8 bytes; anything else (and every error,
        // whose position counts characters) takes the character walk below.
        if let parsed = text.utf8.withContiguousStorageIfAvailable({ Self(asciiHex: $0) }), let parsed {
            self = parsed
            return
        }
        try self.init(hexCharacters: text)
    }

    /// The bytes of hex text given as UTF-8: ASCII hex digits, ASCII whitespace (tab, line feed,
    /// vertical tab, form feed, carriage return, space) anywhere. `nil` for anything else — no
    /// digits, an odd count, any other byte — so that the caller can say why or read it as text.
    package init?(asciiHex utf8: UnsafeBufferPointer<UInt8>) {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(utf8.count / 2)
        var high: UInt8 = 0
        var haveHigh = false
        for byte in utf8 {
            guard let nibble = Self.asciiHexDigitValue(byte) else {
                // ASCII whitespace: space, or tab to carriage return.
                if byte == 0x20 || byte &- 0x09 < 5 { continue }
                return nil
            }
            if haveHigh {
                bytes.append(high << 4 | nibble)
            } else {
                high = nibble
            }
            haveHigh.toggle()
        }
        guard !bytes.isEmpty, !haveHigh else { return nil }
        self = bytes
    }

    /// The character walk: Unicode whitespace skipped, errors with their character positions.
    init(hexCharacters text: String) throws(HexParseError) {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count / 2)
        var highNibble: UInt8?
        var digitCount = 0
        var position = 0
        for character in text {
            position += 1
            if character.isWhitespace { continue }
            guard let nibble = Self.asciiHexDigitValue(character) else {
                throw .invalidCharacter(character, position: position)
            }
            digitCount += 1
            if let high = highNibble {
                bytes.append(high << 4 | nibble)
                highNibble = nil
            } else {
                highNibble = nibble
            }
        }
        guard digitCount > 0 else { throw .empty }
        guard highNibble == nil else { throw .oddDigitCount(digitCount) }
        self = bytes
    }

    // `Character.hexDigitValue` also accepts full-width digits; APDU text is plain ASCII.
    private static func asciiHexDigitValue(_ character: Character) -> UInt8? {
        character.asciiValue.flatMap(asciiHexDigitValue)
    }

    /// The value of an ASCII hex digit, for both readings.
    private static func asciiHexDigitValue(_ ascii: UInt8) -> UInt8? {
        switch ascii {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return ascii - UInt8(ascii: "0")
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return ascii - UInt8(ascii: "A") + 10
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return ascii - UInt8(ascii: "a") + 10
        default: return nil
        }
    }
}

extension Collection where Element == UInt8 {
    /// The bytes as compact upper-case hex, e.g. `"00A4"`. Empty for no bytes.
    public var hexString: String {
        HexFormat.string(self)
    }

    /// The bytes as upper-case hex with one space between bytes, e.g. `"00 A4"`. Empty for no bytes.
    public var spacedHexString: String {
        HexFormat.string(self, spaced: true)
    }
}
