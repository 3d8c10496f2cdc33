/// The driver's trace line for a message it sends, `CCID > PC_to_RDR_XfrBlock seq 7, 15 bytes`,
/// written into one string: appending it piece by piece (and a metadata dictionary before that)
/// was a visible share of a traced APDU's cost (issue 40).
enum CCIDTraceLine {
    static func sent(_ type: CCIDMessageType, sequence: UInt8, length: Int) -> String {
        let name = type.description
        let prefix: StaticString = "CCID > "
        let middle: StaticString = " seq "
        let separator: StaticString = ", "
        let suffix: StaticString = " bytes"
        // The four literals, the name, 3 digits and up to 20 (with a sign).
        let capacity = 7 + name.utf8.count + 5 + 3 + 2 + 20 + 6
        // Unsafe: ASCII written into the string's own buffer; `capacity` counts every byte written.
        return String(unsafeUninitializedCapacity: capacity) { buffer in
            var written = 0
            prefix.withUTF8Buffer { for byte in $0 { buffer[written] = byte; written += 1 } }
            for byte in name.utf8 { buffer[written] = byte; written += 1 }
            middle.withUTF8Buffer { for byte in $0 { buffer[written] = byte; written += 1 } }
            written = writeDecimal(Int(sequence), into: buffer, at: written)
            separator.withUTF8Buffer { for byte in $0 { buffer[written] = byte; written += 1 } }
            written = writeDecimal(length, into: buffer, at: written)
            suffix.withUTF8Buffer { for byte in $0 { buffer[written] = byte; written += 1 } }
            return written
        }
    }

    /// Writes `value` in decimal at `offset` (at most 20 bytes) and returns the offset after it.
    private static func writeDecimal(_ value: Int, into buffer: UnsafeMutableBufferPointer<UInt8>, at offset: Int)
        -> Int
    {
        var end = offset
        if value < 0 {
            buffer[end] = UInt8(ascii: "-")
            end += 1
        }
        var magnitude = value.magnitude
        var digits = 1
        while magnitude >= 10 {
            magnitude /= 10
            digits += 1
        }
        magnitude = value.magnitude
        for position in stride(from: end + digits - 1, through: end, by: -1) {
            buffer[position] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: magnitude % 10)
            magnitude /= 10
        }
        return end + digits
    }
}
