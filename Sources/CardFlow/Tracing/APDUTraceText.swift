import CardFlowHex

/// The text of the trace lines ``TracingCardChannel`` logs, in the shape cardctl's `--trace`
/// prints: `>>> Send apdu …`, `SW1-SW2: 90, 00`, `APDU Response: …`.
enum APDUTraceText {
    /// How a hidden byte is shown.
    static let redactedByte = "**"

    /// `>>> Send apdu 00 A4 04 00 02 3F 00`, with the hidden data bytes as `**`.
    static func sendLine(_ command: CommandAPDU, hiding dataRanges: [Range<Int>]) -> String {
        let encoded = command.encoded()
        // The data field follows the header and the Lc field (1 byte short, 3 bytes extended).
        let dataStart = command.data.isEmpty ? 4 : (command.isoCase().isExtended ? 7 : 5)
        let hidden = dataRanges.map {
            ($0.lowerBound.clampedAdding(dataStart))..<($0.upperBound.clampedAdding(dataStart))
        }
        return ">>> Send apdu "
            + spacedHex(encoded, hiding: hidden, within: dataStart..<(dataStart + command.data.count))
    }

    /// `SW1-SW2: 90, 00`.
    static func statusLine(_ response: ResponseAPDU) -> String {
        "SW1-SW2: \([response.sw1].hexString), \([response.sw2].hexString)"
    }

    /// `APDU Response: 6F 10 …` with hidden bytes as `**`, or `APDU Response: (no data)`.
    static func responseLine(_ response: ResponseAPDU, hiding dataRanges: [Range<Int>]) -> String {
        guard !response.data.isEmpty else { return "APDU Response: (no data)" }
        return "APDU Response: " + spacedHex(response.data, hiding: dataRanges, within: response.data.indices)
    }

    /// Spaced upper-case hex of `bytes`, showing `**` for bytes inside `hidden` (and inside `limit`).
    static func spacedHex(_ bytes: [UInt8], hiding hidden: [Range<Int>], within limit: Range<Int>) -> String {
        guard !hidden.isEmpty else { return bytes.spacedHexString }
        let visible = visibility(count: bytes.count, hiding: hidden, within: limit)
        // Built as ASCII bytes and decoded once: one allocation, not several per byte.
        var ascii: [UInt8] = []
        ascii.reserveCapacity(bytes.count * 3)
        for (index, byte) in bytes.enumerated() {
            if index > 0 { ascii.append(UInt8(ascii: " ")) }
            if !visible[index] {
                ascii += [UInt8(ascii: "*"), UInt8(ascii: "*")]
            } else {
                ascii.append(HexFormat.digit(byte >> 4))
                ascii.append(HexFormat.digit(byte & 0x0F))
            }
        }
        return String(decoding: ascii, as: UTF8.self)
    }

    private static func visibility(count: Int, hiding hidden: [Range<Int>], within limit: Range<Int>) -> [Bool] {
        var visible = [Bool](repeating: true, count: count)
        for range in hidden {
            let lower = max(range.lowerBound, limit.lowerBound, 0)
            let upper = min(range.upperBound, limit.upperBound, count)
            if lower < upper {
                for index in lower..<upper { visible[index] = false }
            }
        }
        return visible
    }
}

extension Int {
    /// `self + other`, stopping at `Int.max` / `Int.min` instead of trapping.
    fileprivate func clampedAdding(_ other: Int) -> Int {
        let (sum, overflow) = addingReportingOverflow(other)
        return overflow ? (other > 0 ? .max : .min) : sum
    }
}
