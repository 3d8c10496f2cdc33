/// The text of the trace lines ``TracingCardChannel`` logs, in the shape cardctl's `--trace`
/// prints: `>>> Send apdu …`, `SW1-SW2: 90, 00`, `APDU Response: …`.
///
/// Each line is written straight into one string (no byte array, no partial strings): one
/// allocation per line, none for lines of up to 15 characters such as the status line.
enum APDUTraceText {
    /// How a hidden byte is shown.
    static let redactedByte = "**"

    /// `>>> Send apdu 00 A4 04 00 02 3F 00` for `command`, whose bytes are `encoded`, with the
    /// hidden data bytes as `**`; and whether any byte was hidden.
    static func sendLine(_ command: CommandAPDU, encoded: [UInt8], hiding dataRanges: [Range<Int>]) -> (
        text: String, redacted: Bool
    ) {
        // The data field follows the header and the Lc field (1 byte short, 3 bytes extended).
        let dataStart = command.data.isEmpty ? 4 : (command.isoCase().isExtended ? 7 : 5)
        let hidden = dataRanges.map {
            ($0.lowerBound.clampedAdding(dataStart))..<($0.upperBound.clampedAdding(dataStart))
        }
        return spacedHex(
            encoded, after: ">>> Send apdu ", hiding: hidden, within: dataStart..<(dataStart + command.data.count))
    }

    /// `SW1-SW2: 90, 00`.
    static func statusLine(_ response: ResponseAPDU) -> String {
        let prefix: StaticString = "SW1-SW2: "
        // Unsafe: 15 ASCII bytes written into the string's own (inline) buffer, indices below 15.
        return String(unsafeUninitializedCapacity: 15) { buffer in
            for index in 0..<9 { buffer[index] = prefix.utf8Start[index] }
            buffer[9] = hexDigit(response.sw1 >> 4)
            buffer[10] = hexDigit(response.sw1 & 0x0F)
            buffer[11] = UInt8(ascii: ",")
            buffer[12] = UInt8(ascii: " ")
            buffer[13] = hexDigit(response.sw2 >> 4)
            buffer[14] = hexDigit(response.sw2 & 0x0F)
            return 15
        }
    }

    /// `APDU Response: 6F 10 …` with hidden bytes as `**`, or `APDU Response: (no data)`; and
    /// whether any byte was hidden.
    static func responseLine(_ response: ResponseAPDU, hiding dataRanges: [Range<Int>]) -> (
        text: String, redacted: Bool
    ) {
        guard !response.data.isEmpty else { return ("APDU Response: (no data)", false) }
        return spacedHex(response.data, after: "APDU Response: ", hiding: dataRanges, within: response.data.indices)
    }

    /// `prefix` (which ends in a space) and the spaced upper-case hex of `bytes`, showing `**`
    /// for bytes inside `hidden` (and inside `limit`); and whether any byte was hidden.
    static func spacedHex(
        _ bytes: [UInt8], after prefix: StaticString, hiding hidden: [Range<Int>], within limit: Range<Int>
    ) -> (text: String, redacted: Bool) {
        guard !bytes.isEmpty else { return (prefix.description, false) }
        var redacted = false
        assert(prefix.hasPointerRepresentation && prefix.utf8Start[prefix.utf8CodeUnitCount - 1] == UInt8(ascii: " "))
        // The prefix, then three characters per byte (the first byte's space is the prefix's),
        // and room for the last store's fourth byte.
        let capacity = prefix.utf8CodeUnitCount + bytes.count * 3
        // Nothing hidden (the common case): no range check per byte.
        let hides = !hidden.isEmpty
        // Unsafe: ASCII written straight into the string's storage, one allocation and no
        // per-character append. Each byte is one 4-byte store of " XX" and a spare byte (which
        // the next store overwrites, or which lies past the text's end) at offset `count`; the
        // last byte's store ends at `capacity - 1`: every write is inside the buffer.
        let text = String(unsafeUninitializedCapacity: capacity) { buffer in
            let base = UnsafeMutableRawPointer(buffer.baseAddress!)
            base.copyMemory(from: prefix.utf8Start, byteCount: prefix.utf8CodeUnitCount)
            var count = prefix.utf8CodeUnitCount - 1
            spacedDigitWords.withUnsafeBufferPointer { words in
                for index in bytes.indices {
                    let word: UInt32
                    if hides && isHidden(index, by: hidden, within: limit) {
                        word = hiddenByteWord
                        redacted = true
                    } else {
                        word = words[Int(bytes[index])]
                    }
                    base.storeBytes(of: word.littleEndian, toByteOffset: count, as: UInt32.self)
                    count += 3
                }
            }
            return count
        }
        return (text, redacted)
    }

    /// For each byte value, `" XX"` in the first three bytes of a little-endian word: a byte of
    /// the line is one table read and one store (formatting nibble by nibble was most of what
    /// tracing added to a 255-byte APDU).
    private static let spacedDigitWords: [UInt32] = (0...255).map { value in
        spacedWord(hexDigit(UInt8(value) >> 4), hexDigit(UInt8(value) & 0x0F))
    }

    /// `" **"`, a hidden byte.
    private static let hiddenByteWord = spacedWord(UInt8(ascii: "*"), UInt8(ascii: "*"))

    private static func spacedWord(_ first: UInt8, _ second: UInt8) -> UInt32 {
        UInt32(UInt8(ascii: " ")) | UInt32(first) << 8 | UInt32(second) << 16
    }

    /// The upper-case ASCII hex digit of a nibble, here rather than `HexFormat.digit`: that one
    /// was not inlined across modules, a call per digit (with the loop around it, close to half
    /// of what tracing added to a 255-byte APDU).
    @inline(__always)
    private static func hexDigit(_ nibble: UInt8) -> UInt8 {
        nibble < 10 ? UInt8(ascii: "0") &+ nibble : UInt8(ascii: "A") &+ (nibble &- 10)
    }

    /// Whether the byte at `index` lies in one of `hidden`, clipped to `limit`.
    private static func isHidden(_ index: Int, by hidden: [Range<Int>], within limit: Range<Int>) -> Bool {
        hidden.contains { range in
            index >= max(range.lowerBound, limit.lowerBound) && index < min(range.upperBound, limit.upperBound)
        }
    }
}

extension Int {
    /// `self + other`, stopping at `Int.max` / `Int.min` instead of trapping.
    fileprivate func clampedAdding(_ other: Int) -> Int {
        let (sum, overflow) = addingReportingOverflow(other)
        return overflow ? (other > 0 ? .max : .min) : sum
    }
}
