/// An ATR's historical bytes read as ISO/IEC 7816-4 structures them: a category indicator, then
/// COMPACT-TLV data objects and a status indicator, or a card maker's own format.
///
/// For an ISO/IEC 14443-4 card on a PC/SC part 3 reader these are the historical bytes of the
/// card's ATS.
///
/// ```swift
/// let historical = HistoricalBytes([0x80, 0x31, 0x80, 0x82, 0x90, 0x00])
/// historical.category            // .compactTLV
/// historical.objects.map(\.tag)  // [3, 8]
/// ```
public struct HistoricalBytes: Sendable, Hashable {
    /// How the bytes after the first one are organised.
    public enum Category: Sendable, Hashable {
        /// 00: COMPACT-TLV data objects, then a status indicator in the last three bytes.
        case compactTLVWithStatus
        /// 10: one byte follows, a DIR data reference.
        case dirDataReference
        /// 80: COMPACT-TLV data objects (a status indicator, if any, is one of them).
        case compactTLV
        /// 81…8F: reserved for future use.
        case reserved(UInt8)
        /// Any other first byte: the card maker's own format.
        case proprietary
    }

    /// One COMPACT-TLV data object: a tag and length nibble byte, then the value.
    public struct CompactTLV: Sendable, Hashable, CustomStringConvertible {
        /// The tag nibble (1 country code … 8 status indicator, F application identifier).
        public let tag: UInt8
        /// The value bytes (as many as the length nibble says).
        public let value: [UInt8]

        /// ISO/IEC 7816-4's name of the object.
        public var name: String {
            switch tag {
            case 0x1: "country code"
            case 0x2: "issuer identification number"
            case 0x3: "card service data"
            case 0x4: "initial access data"
            case 0x5: "card issuer's data"
            case 0x6: "pre-issuing data"
            case 0x7: "card capabilities"
            case 0x8: "status indicator"
            case 0xF: "application identifier"
            default: "tag \(String(tag, radix: 16, uppercase: true))"
            }
        }

        public var description: String {
            var text = "\(name): \(value.hexString)"
            if let printable = HistoricalBytes.printableText(value), [0x5, 0x6].contains(tag) {
                text += " (\"\(printable)\")"
            }
            if tag == 0x7, let capabilities = HistoricalBytes.describeCapabilities(value) {
                text += " (\(capabilities))"
            }
            return text
        }
    }

    /// The bytes.
    public let bytes: [UInt8]
    /// What the first byte announces; nil when there are no historical bytes.
    public let category: Category?
    /// The COMPACT-TLV data objects, when the category has them and they are well formed.
    public let objects: [CompactTLV]
    /// Life cycle status and status word, from the status indicator (category 00, or tag 8).
    public let lifeCycleStatus: UInt8?
    /// SW1-SW2 from the status indicator.
    public let statusWord: UInt16?
    /// True when the category announces COMPACT-TLV objects but the bytes do not split into them.
    public let malformed: Bool

    /// Reads `bytes` (never fails: what does not parse is ``malformed`` or ``Category/proprietary``).
    public init(_ bytes: [UInt8]) {
        self.bytes = bytes
        guard let first = bytes.first else {
            (category, objects, lifeCycleStatus, statusWord, malformed) = (nil, [], nil, nil, false)
            return
        }
        var objects: [CompactTLV] = []
        var lifeCycle: UInt8?
        var status: UInt16?
        var malformed = false
        switch first {
        case 0x00:
            category = .compactTLVWithStatus
            if bytes.count >= 4 {
                let status3 = bytes.suffix(3)
                lifeCycle = status3.first
                status = UInt16(status3[status3.startIndex + 1]) << 8 | UInt16(status3[status3.startIndex + 2])
                if let parsed = Self.compactTLV(bytes.dropFirst().dropLast(3)) {
                    objects = parsed
                } else {
                    malformed = true
                }
            } else {
                malformed = true
            }
        case 0x10:
            category = .dirDataReference
            malformed = bytes.count != 2
        case 0x80:
            category = .compactTLV
            if let parsed = Self.compactTLV(bytes.dropFirst()) {
                objects = parsed
                if let indicator = parsed.last(where: { $0.tag == 0x8 })?.value {
                    switch indicator.count {
                    case 1: lifeCycle = indicator[0]
                    case 2: status = UInt16(indicator[0]) << 8 | UInt16(indicator[1])
                    case 3: lifeCycle = indicator[0]; status = UInt16(indicator[1]) << 8 | UInt16(indicator[2])
                    default: break
                    }
                }
            } else {
                malformed = true
            }
        case 0x81...0x8F:
            category = .reserved(first)
        default:
            category = .proprietary
        }
        self.objects = objects
        self.lifeCycleStatus = lifeCycle
        self.statusWord = status
        self.malformed = malformed
    }

    /// The bytes as text when they are all printable ASCII (at least 3 of them), as in the
    /// proprietary historical bytes many Java Card platforms send ("JCOP41V221").
    public var text: String? { Self.printableText(bytes) }

    /// The life cycle status byte in words (ISO/IEC 7816-4's coding), nil when it has none.
    public var lifeCycleDescription: String? {
        guard let status = lifeCycleStatus else { return nil }
        switch status {
        case 0x00: return "no life cycle information"
        case 0x01: return "creation state"
        case 0x03: return "initialisation state"
        case 0x05, 0x07: return "operational state (activated)"
        case 0x04, 0x06: return "operational state (deactivated)"
        case 0x0C...0x0F: return "termination state"
        default: return nil
        }
    }

    /// Splits `bytes` into COMPACT-TLV objects; nil when a length runs past the end.
    static func compactTLV(_ bytes: ArraySlice<UInt8>) -> [CompactTLV]? {
        var objects: [CompactTLV] = []
        var index = bytes.startIndex
        while index < bytes.endIndex {
            let header = bytes[index]
            let length = Int(header & 0x0F)
            let start = index + 1
            guard start + length <= bytes.endIndex else { return nil }
            objects.append(CompactTLV(tag: header >> 4, value: Array(bytes[start..<start + length])))
            index = start + length
        }
        return objects
    }

    static func printableText(_ bytes: [UInt8]) -> String? {
        guard bytes.count >= 3, bytes.allSatisfy({ (0x20...0x7E).contains($0) }) else { return nil }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The third card capabilities byte (command chaining, extended Lc/Le, logical channels).
    static func describeCapabilities(_ value: [UInt8]) -> String? {
        guard value.count == 3 else { return nil }
        let third = value[2]
        var parts: [String] = []
        if third & 0x80 != 0 { parts.append("command chaining") }
        if third & 0x40 != 0 { parts.append("extended Lc and Le") }
        let channels = Int(third & 0x07)
        if third & 0x18 != 0 {
            parts.append(channels == 7 ? "8 or more logical channels" : "up to \(channels + 1) logical channels")
        }
        return parts.isEmpty ? nil : parts.joined(separator: ", ")
    }
}
