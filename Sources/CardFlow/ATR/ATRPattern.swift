/// One ATR line of pcsc-tools' `smartcard_list.txt`: upper-case hex bytes separated by spaces,
/// written as a regular expression that must match the whole ATR text ("3B 8F 80 01 …").
///
/// The database uses a small part of regular expressions: `.` for any character, `[…]` for a
/// set (ranges such as `1-5` and a stray `,` included, as pcsc-tools' Perl reads them) and `*`
/// after either. Matching ignores case. A line with any other special character (`(`, `|`, `+`,
/// `?`, `{`, `\`, `^`, `$`) is not understood and matches nothing, rather than something wrong.
///
/// ```swift
/// let pattern = ATRPattern("3B 8F 80 01 80 4F 0C A0 00 00 03 06 .. 00 01 00 00 00 00 ..")
/// pattern?.matches("3B 8F 80 01 80 4F 0C A0 00 00 03 06 03 00 01 00 00 00 00 6A")  // true
/// ```
public struct ATRPattern: Sendable, Hashable {
    private enum Element: Sendable, Hashable {
        case character(UInt8)
        case any
        case set([ClosedRange<UInt8>])

        func accepts(_ byte: UInt8) -> Bool {
            switch self {
            case .character(let character): character == byte
            case .any: true
            case .set(let ranges): ranges.contains { $0.contains(byte) }
            }
        }
    }

    private struct Piece: Sendable, Hashable {
        let element: Element
        let repeats: Bool
    }

    /// The line as the database gives it.
    public let text: String
    private let pieces: [Piece]

    /// Reads a pattern line; nil when it uses syntax beyond `.`, `[…]` and `*`.
    public init?(_ text: String) {
        var pieces: [Piece] = []
        var characters = Array(text.uppercased().utf8)[...]
        while let first = characters.popFirst() {
            let element: Element
            switch first {
            case UInt8(ascii: "."): element = .any
            case UInt8(ascii: "["):
                guard let close = characters.firstIndex(of: UInt8(ascii: "]")) else { return nil }
                let members = Array(characters[..<close])
                characters = characters[(close + 1)...]
                guard let set = Self.set(members) else { return nil }
                element = .set(set)
            case UInt8(ascii: "*"):
                return nil // a star with nothing before it
            case UInt8(ascii: "("), UInt8(ascii: ")"), UInt8(ascii: "|"), UInt8(ascii: "+"), UInt8(ascii: "?"),
                UInt8(ascii: "{"), UInt8(ascii: "}"), UInt8(ascii: "\\"), UInt8(ascii: "^"), UInt8(ascii: "$"),
                UInt8(ascii: "]"):
                return nil
            default: element = .character(first)
            }
            var repeats = false
            if characters.first == UInt8(ascii: "*") {
                characters = characters.dropFirst()
                repeats = true
            }
            pieces.append(Piece(element: element, repeats: repeats))
        }
        self.text = text
        self.pieces = pieces
    }

    /// True when the pattern matches all of `atrText` (upper- or lower-case hex, bytes
    /// separated by single spaces, as ``ATRPattern/text(of:)`` writes them).
    public func matches(_ atrText: String) -> Bool {
        let subject = Array(atrText.uppercased().utf8)
        return Self.match(pieces[...], subject[...])
    }

    /// The text the database's patterns are matched against: `3B 8F 80 01 …`.
    public static func text(of atr: [UInt8]) -> String {
        atr.spacedHexString
    }

    private static func match(_ pieces: ArraySlice<Piece>, _ subject: ArraySlice<UInt8>) -> Bool {
        guard let piece = pieces.first else { return subject.isEmpty }
        let rest = pieces.dropFirst()
        if piece.repeats {
            // Try every count, shortest first; patterns are short, so backtracking is cheap.
            var remaining = subject
            while true {
                if match(rest, remaining) { return true }
                guard let next = remaining.first, piece.element.accepts(next) else { return false }
                remaining = remaining.dropFirst()
            }
        }
        guard let next = subject.first, piece.element.accepts(next) else { return false }
        return match(rest, subject.dropFirst())
    }

    /// `[…]` members: single characters and `A-B` ranges.
    private static func set(_ members: [UInt8]) -> [ClosedRange<UInt8>]? {
        guard !members.isEmpty, members.first != UInt8(ascii: "^") else { return nil }
        var ranges: [ClosedRange<UInt8>] = []
        var index = 0
        while index < members.count {
            let low = members[index]
            if index + 2 < members.count, members[index + 1] == UInt8(ascii: "-") {
                let high = members[index + 2]
                guard low <= high else { return nil }
                ranges.append(low...high)
                index += 3
            } else {
                ranges.append(low...low)
                index += 1
            }
        }
        return ranges
    }
}
