import CardFlowHex

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
        var line = "SW1-SW2: "
        HexFormat.append(response.sw1, to: &line)
        line += ", "
        HexFormat.append(response.sw2, to: &line)
        return line
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
        // Unsafe: ASCII written straight into the string's storage, one allocation and no
        // per-character append (a 256-byte line took ~20 µs that way); every index is below `capacity`.
        let text = String(unsafeUninitializedCapacity: capacity) { buffer in
            var count = 0
            for unit in prefix.utf8 {
                buffer[count] = unit
                count += 1
            }
            for (index, byte) in bytes.enumerated() {
                if index > 0 {
                    buffer[count] = UInt8(ascii: " ")
                    count += 1
                }
                if isHidden(index, by: hidden, within: limit) {
                    buffer[count] = UInt8(ascii: "*")
                    buffer[count + 1] = UInt8(ascii: "*")
                    redacted = true
                } else {
                    buffer[count] = HexFormat.digit(byte >> 4)
                    buffer[count + 1] = HexFormat.digit(byte & 0x0F)
                }
                count += 2
            }
            return count
        }
        return (text, redacted)
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
