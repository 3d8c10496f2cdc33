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
        var text = prefix
        text.reserveCapacity(prefix.utf8.count + bytes.count * 3)
        var redacted = false
        for (index, byte) in bytes.enumerated() {
            if index > 0 { text.unicodeScalars.append(" ") }
            if isHidden(index, by: hidden, within: limit) {
                text += redactedByte
                redacted = true
            } else {
                HexFormat.append(byte, to: &text)
            }
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
