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

    /// `prefix` and the spaced upper-case hex of `bytes`, showing `**` for bytes inside `hidden`
    /// (and inside `limit`); and whether any byte was hidden.
    static func spacedHex(
        _ bytes: [UInt8], after prefix: String, hiding hidden: [Range<Int>], within limit: Range<Int>
    ) -> (text: String, redacted: Bool) {
        var redacted = false
        // The prefix, then at most three characters per byte (no space after the last).
        let capacity = prefix.utf8.count + bytes.count * 3
        // Nothing hidden (the common case): no range check per byte.
        let hides = !hidden.isEmpty
        // Unsafe: ASCII written straight into the string's storage, one allocation and no
        // per-character append (a 256-byte line took ~20 µs that way); every index is below `capacity`.
        let text = String(unsafeUninitializedCapacity: capacity) { buffer in
            var count = 0
            for unit in prefix.utf8 {
                buffer[count] = unit
                count += 1
            }
            for index in bytes.indices {
                if index > 0 {
                    buffer[count] = UInt8(ascii: " ")
                    count += 1
                }
                if hides && isHidden(index, by: hidden, within: limit) {
                    buffer[count] = UInt8(ascii: "*")
                    buffer[count + 1] = UInt8(ascii: "*")
                    redacted = true
                } else {
                    let byte = bytes[index]
                    buffer[count] = hexDigit(byte >> 4)
                    buffer[count + 1] = hexDigit(byte & 0x0F)
                }
                count += 2
            }
            return count
        }
        return (text, redacted)
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
