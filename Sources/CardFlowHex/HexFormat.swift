/// Bytes and integers as upper-case hex text: the one implementation every CardFlow module
/// uses for logs, descriptions and traces (`package` access: CardFlow's public `hexString` is
/// the API users see; the layers below CardFlow, CCID, PCSC and VPCD, use this directly).
package enum HexFormat {
    /// `"00A4"`, or `"00 A4"` with `spaced`; empty for no bytes.
    ///
    /// Inlinable so that callers get it specialised for their collection: unspecialised, each
    /// element went through the collection's `read` coroutine, whose frame was heap-allocated,
    /// two mallocs a byte (issue 40). Built in one string: one allocation, none up to 15 characters.
    @inlinable
    package static func string(_ bytes: some Collection<UInt8>, spaced: Bool = false) -> String {
        var text = ""
        text.reserveCapacity(bytes.count * (spaced ? 3 : 2))
        for byte in bytes {
            if spaced && !text.isEmpty { text.unicodeScalars.append(" ") }
            append(byte, to: &text)
        }
        return text
    }

    /// Appends the byte's two digits to `text`.
    @inlinable
    package static func append(_ byte: UInt8, to text: inout String) {
        text.unicodeScalars.append(Unicode.Scalar(digit(byte >> 4)))
        text.unicodeScalars.append(Unicode.Scalar(digit(byte & 0x0F)))
    }

    /// An unsigned integer zero-padded to its width: `0x0A as UInt8` → `"0A"`, `0x72F as UInt16` → `"072F"`.
    package static func digits<Value: FixedWidthInteger & UnsignedInteger>(_ value: Value) -> String {
        var ascii: [UInt8] = []
        let nibbles = Value.bitWidth / 4
        ascii.reserveCapacity(nibbles)
        for index in stride(from: nibbles - 1, through: 0, by: -1) {
            ascii.append(digit(UInt8(truncatingIfNeeded: value >> (index * 4)) & 0x0F))
        }
        return String(decoding: ascii, as: UTF8.self)
    }

    /// The upper-case ASCII hex digit of a nibble (0…15; no table to allocate).
    @inlinable @inline(__always)
    package static func digit(_ nibble: UInt8) -> UInt8 {
        nibble < 10 ? UInt8(ascii: "0") + nibble : UInt8(ascii: "A") + nibble - 10
    }
}
