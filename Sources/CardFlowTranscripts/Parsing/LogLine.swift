/// One pasted log line with what people's pastes add around pcscd's text taken off: colour
/// codes, quoting (`> `, `| `), a syslog or journal prefix (`… pcscd[123]: `), pcscd's delta
/// timestamp and the thread id (`[140017007589056]`).
struct LogLine {
    /// The text pcscd or libccid printed, without the prefixes (may be empty).
    let message: Substring
    /// The line with colour codes and quoting removed, trimmed (for header and gap lines).
    let unquoted: Substring

    init(_ raw: Substring) {
        let plain = Self.removingColourCodes(raw)
        var text = plain[...]
        text = Self.trimmingQuoting(text)
        unquoted = text
        if let pcscd = text.range(of: "pcscd[") {
            // journalctl / syslog: "May 14 18:41:50 host pcscd[336623]: 00000012 …"
            let after = text[pcscd.upperBound...]
            if let close = after.firstIndex(of: "]"), after[close...].hasPrefix("]: "),
                after[..<close].allSatisfy(\.isNumber)
            {
                text = after[after.index(close, offsetBy: 3)...]
            }
        }
        text = text.drop(while: \.isWhitespace)
        // pcscd's delta timestamp: microseconds as 6 to 10 digits.
        let digits = text.prefix(while: \.isNumber)
        if (6...10).contains(digits.count), text.dropFirst(digits.count).first == " " {
            text = text.dropFirst(digits.count + 1)
        }
        text = text.drop(while: \.isWhitespace)
        // The thread id pcscd prints since 1.8.22: "[140017007589056] " (negative on 32-bit).
        if text.first == "[", let close = text.firstIndex(of: "]"),
            text[text.index(after: text.startIndex)..<close].allSatisfy({ $0.isNumber || $0 == "-" }),
            text.index(after: text.startIndex) < close
        {
            text = text[text.index(after: close)...].drop(while: \.isWhitespace)
        }
        message = text
    }

    /// The text with ANSI SGR sequences removed, with or without their ESC (a paste often loses
    /// it and keeps `[32m`).
    static func removingColourCodes(_ raw: Substring) -> String {
        var result = ""
        result.reserveCapacity(raw.utf8.count)
        var index = raw.startIndex
        while index < raw.endIndex {
            let character = raw[index]
            if character == "\r" {
                index = raw.index(after: index)
                continue
            }
            if character == "\u{1B}" || character == "[", let end = colourCodeEnd(raw, from: index) {
                index = end
                continue
            }
            result.append(character)
            index = raw.index(after: index)
        }
        return result
    }

    /// Where an SGR sequence starting at `start` (ESC, or `[` when ESC was lost) ends, if it is one.
    private static func colourCodeEnd(_ raw: Substring, from start: Substring.Index) -> Substring.Index? {
        var index = start
        if raw[index] == "\u{1B}" {
            index = raw.index(after: index)
            guard index < raw.endIndex, raw[index] == "[" else { return index }
        }
        index = raw.index(after: index)
        var length = 0
        while index < raw.endIndex, raw[index].isNumber || raw[index] == ";", length < 12 {
            index = raw.index(after: index)
            length += 1
        }
        guard index < raw.endIndex, raw[index] == "m" else { return nil }
        return raw.index(after: index)
    }

    private static func trimmingQuoting(_ text: Substring) -> Substring {
        var text = text.drop(while: \.isWhitespace)
        while let first = text.first, first == ">" || first == "|" {
            text = text.dropFirst().drop(while: \.isWhitespace)
        }
        guard let last = text.lastIndex(where: { !$0.isWhitespace }) else { return text[text.endIndex...] }
        return text[...last]
    }

    /// Two-digit hex bytes separated by blanks; nil when any token is something else.
    static func hexBytes(_ text: Substring) -> [UInt8]? {
        var bytes: [UInt8] = []
        for token in text.split(whereSeparator: { $0 == " " || $0 == "\t" }) {
            guard token.count == 2, let byte = UInt8(token, radix: 16) else { return nil }
            bytes.append(byte)
        }
        return bytes
    }

    /// Hex written in groups of one to four bytes without blanks inside a group
    /// (`6f0c0000 00000300 0002`); nil when any group is something else.
    static func groupedHexBytes(_ text: Substring) -> [UInt8]? {
        var bytes: [UInt8] = []
        for token in text.split(whereSeparator: { $0 == " " || $0 == "\t" }) {
            guard token.count.isMultiple(of: 2), token.count <= 8 else { return nil }
            var index = token.startIndex
            while index < token.endIndex {
                let next = token.index(index, offsetBy: 2)
                guard let byte = UInt8(token[index..<next], radix: 16) else { return nil }
                bytes.append(byte)
                index = next
            }
        }
        return bytes
    }
}
