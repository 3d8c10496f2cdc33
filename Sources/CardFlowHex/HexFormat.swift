/// Bytes and integers as upper-case hex text: the one implementation every CardFlow module
/// uses for logs, descriptions and traces (`package` access: CardFlow's public `hexString` is
/// the API users see; the layers below CardFlow, CCID, PCSC and VPCD, use this directly).
package enum HexFormat {
    /// `"00A4"`, or `"00 A4"` with `spaced`; empty for no bytes.
    package static func string(_ bytes: some Collection<UInt8>, spaced: Bool = false) -> String {
        var ascii: [UInt8] = []
        ascii.reserveCapacity(bytes.count * (spaced ? 3 : 2))
        for byte in bytes {
            if spaced && !ascii.isEmpty { ascii.append(UInt8(ascii: " ")) }
            ascii.append(digit(byte >> 4))
            ascii.append(digit(byte & 0x0F))
        }
        return String(decoding: ascii, as: UTF8.self)
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
    @inline(__always)
    package static func digit(_ nibble: UInt8) -> UInt8 {
        nibble < 10 ? UInt8(ascii: "0") + nibble : UInt8(ascii: "A") + nibble - 10
    }
}
