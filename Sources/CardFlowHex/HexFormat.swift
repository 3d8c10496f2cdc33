/// Bytes and integers as upper-case hex text: the one implementation every CardFlow module
/// uses for logs, descriptions and traces (`package` access: CardFlow's public `hexString` is
/// the API users see; the layers below CardFlow, CCID, PCSC and VPCD, use this directly).
package enum HexFormat {
    /// `"00A4"`, or `"00 A4"` with `spaced`; empty for no bytes.
    ///
    /// Inlinable so that callers get it specialised for their collection: unspecialised, each
    /// element went through the collection's `read` coroutine, whose frame was heap-allocated,
    /// two mallocs a byte (issue 40). Written straight into one string: one allocation, none up
    /// to 15 characters.
    @inlinable
    package static func string(_ bytes: some Collection<UInt8>, spaced: Bool = false) -> String {
        let count = bytes.count
        guard count > 0 else { return "" }
        let capacity = spaced ? count * 3 - 1 : count * 2
        // Unsafe: ASCII written into the string's own buffer, each write checked against its
        // size (a collection whose `count` undercounts its elements is cut, not overrun).
        return String(unsafeUninitializedCapacity: capacity) { buffer in
            var written = 0
            for byte in bytes {
                guard written + (spaced && written > 0 ? 3 : 2) <= buffer.count else { break }
                if spaced && written > 0 {
                    buffer[written] = UInt8(ascii: " ")
                    written += 1
                }
                buffer[written] = digit(byte >> 4)
                buffer[written + 1] = digit(byte & 0x0F)
                written += 2
            }
            return written
        }
    }

    /// An unsigned integer zero-padded to its width: `0x0A as UInt8` → `"0A"`, `0x72F as UInt16` → `"072F"`.
    @inlinable
    package static func digits<Value: FixedWidthInteger & UnsignedInteger>(_ value: Value) -> String {
        guard Value.bitWidth <= 64 else {
            // Wider than 64 bits: its bytes, most significant first.
            let byteCount = Value.bitWidth / 8
            return string((0..<byteCount).map { UInt8(truncatingIfNeeded: value >> ((byteCount - 1 - $0) * 8)) })
        }
        return digits(UInt64(truncatingIfNeeded: value), nibbles: Value.bitWidth / 4)
    }

    /// `"A4"`: the common case, not generic (an unspecialised generic shift went through
    /// protocol witnesses for every digit of a trace line).
    @inlinable
    package static func digits(_ value: UInt8) -> String { digits(UInt64(value), nibbles: 2) }

    /// `"9000"`.
    @inlinable
    package static func digits(_ value: UInt16) -> String { digits(UInt64(value), nibbles: 4) }

    /// The low `nibbles` (1…16) hex digits of `value`, written straight into the string's
    /// storage: up to 15 digits the string is stored inline, with no allocation.
    @usableFromInline
    static func digits(_ value: UInt64, nibbles: Int) -> String {
        let count = min(max(nibbles, 0), 16)
        // Unsafe: ASCII written into the string's own buffer; every index is below `count`.
        return String(unsafeUninitializedCapacity: count) { buffer in
            for index in 0..<count {
                buffer[index] = digit(UInt8(truncatingIfNeeded: value >> UInt64((count - 1 - index) * 4)) & 0x0F)
            }
            return count
        }
    }

    /// The upper-case ASCII hex digit of a nibble (0…15; no table to allocate).
    @inlinable @inline(__always)
    package static func digit(_ nibble: UInt8) -> UInt8 {
        nibble < 10 ? UInt8(ascii: "0") + nibble : UInt8(ascii: "A") + nibble - 10
    }
}
