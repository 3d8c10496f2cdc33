/// The driver's trace line for a message it sends, `CCID > PC_to_RDR_XfrBlock seq 7, 15 bytes`,
/// written into one string: appending it piece by piece (and a metadata dictionary before that)
/// was a visible share of a traced APDU's cost (issue 40).
enum CCIDTraceLine {
    static func sent(_ type: CCIDMessageType, sequence: UInt8, length: Int) -> String {
        var name = type.description
        let prefix: StaticString = "CCID > "
        let middle: StaticString = " seq "
        let separator: StaticString = ", "
        let suffix: StaticString = " bytes"
        // The four literals, the name, 3 digits and up to 20 (with a sign).
        let capacity = 7 + name.utf8.count + 5 + 3 + 2 + 20 + 6
        return name.withUTF8 { name in
            // Unsafe: ASCII copied into the string's own buffer, each copy checked against its size.
            String(unsafeUninitializedCapacity: capacity) { buffer in
                var written = copy(
                    UnsafeBufferPointer(start: prefix.utf8Start, count: prefix.utf8CodeUnitCount), into: buffer, at: 0)
                written = copy(name, into: buffer, at: written)
                written = copy(
                    UnsafeBufferPointer(start: middle.utf8Start, count: middle.utf8CodeUnitCount), into: buffer,
                    at: written)
                written = writeDecimal(Int(sequence), into: buffer, at: written)
                written = copy(
                    UnsafeBufferPointer(start: separator.utf8Start, count: separator.utf8CodeUnitCount), into: buffer,
                    at: written)
                written = writeDecimal(length, into: buffer, at: written)
                return copy(
                    UnsafeBufferPointer(start: suffix.utf8Start, count: suffix.utf8CodeUnitCount), into: buffer,
                    at: written)
            }
        }
    }

    /// Copies `source` to `buffer` at `offset` when it fits (nothing otherwise) and returns the offset after it.
    private static func copy(
        _ source: UnsafeBufferPointer<UInt8>, into buffer: UnsafeMutableBufferPointer<UInt8>, at offset: Int
    ) -> Int {
        guard let from = source.baseAddress, let to = buffer.baseAddress, source.count <= buffer.count - offset else {
            return offset
        }
        (to + offset).initialize(from: from, count: source.count)
        return offset + source.count
    }

    /// Writes `value` in decimal at `offset` when it fits (nothing otherwise) and returns the offset after it.
    private static func writeDecimal(_ value: Int, into buffer: UnsafeMutableBufferPointer<UInt8>, at offset: Int)
        -> Int
    {
        var digits = 1
        var rest = value.magnitude
        while rest >= 10 {
            rest /= 10
            digits += 1
        }
        let sign = value < 0 ? 1 : 0
        guard sign + digits <= buffer.count - offset else { return offset }
        if sign == 1 { buffer[offset] = UInt8(ascii: "-") }
        var magnitude = value.magnitude
        for position in stride(from: offset + sign + digits - 1, through: offset + sign, by: -1) {
            buffer[position] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: magnitude % 10)
            magnitude /= 10
        }
        return offset + sign + digits
    }
}
