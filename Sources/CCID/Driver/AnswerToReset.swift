/// An ISO/IEC 7816-3 answer to reset, parsed as far as a CCID host needs it: the protocols the
/// card offers, the T=1 parameters of a TPDU-level exchange, and the historical bytes.
public struct AnswerToReset: Sendable, Hashable {
    /// The raw bytes.
    public let bytes: [UInt8]
    /// Protocols announced in TD1, TD2, … (T=0 when none is announced).
    public let protocols: [UInt8]
    /// The historical bytes (for PC/SC part 3 contactless ATRs: the card's ATS historical bytes
    /// or the storage-card AID).
    public let historicalBytes: [UInt8]
    /// IFSC from the first TA for T=1 (i >= 3), 32 when absent.
    public let t1IFSC: Int
    /// True when the first TC for T=1 (i >= 3) selects CRC instead of LRC.
    public let t1UsesCRC: Bool
    /// The first TB for T=1 (i >= 3): BWI in the high nibble, CWI in the low nibble.
    public let t1WaitingIntegers: UInt8?
    /// TA1 (Fi/Di), when present.
    public let ta1: UInt8?

    /// Parses an ATR; malformed ones give ``ATRParseError``.
    public init(bytes: [UInt8]) throws(ATRParseError) {
        guard bytes.count >= 2 else { throw .tooShort }
        guard bytes[0] == 0x3B || bytes[0] == 0x3F else { throw .invalidTS(bytes[0]) }
        var index = 1
        var td = bytes[1]
        let historicalCount = Int(td & 0x0F)
        var protocols: [UInt8] = []
        var ifsc = 32
        var crc = false
        var waiting: UInt8?
        var ta1: UInt8?
        var interfaceGroup = 1
        var sawIFSC = false, sawEDC = false
        index = 2
        while true {
            let y = td >> 4
            var ta: UInt8?, tc: UInt8?, tb: UInt8?
            if y & 0x1 != 0 { guard index < bytes.count else { throw .truncated }; ta = bytes[index]; index += 1 }
            if y & 0x2 != 0 { guard index < bytes.count else { throw .truncated }; tb = bytes[index]; index += 1 }
            if y & 0x4 != 0 { guard index < bytes.count else { throw .truncated }; tc = bytes[index]; index += 1 }
            if interfaceGroup == 1 { ta1 = ta }
            // Bytes of group i >= 3 that follow a TD announcing T=1 are T=1 specific.
            if interfaceGroup >= 3, protocols.last == 1 {
                if let ta, !sawIFSC { ifsc = Int(ta); sawIFSC = true }
                if let tb, waiting == nil { waiting = tb }
                if let tc, !sawEDC { crc = tc & 0x01 != 0; sawEDC = true }
            }
            guard y & 0x8 != 0 else { break }
            guard index < bytes.count else { throw .truncated }
            td = bytes[index]
            index += 1
            protocols.append(td & 0x0F)
            interfaceGroup += 1
        }
        guard index + historicalCount <= bytes.count else { throw .truncated }
        let historical = Array(bytes[index..<index + historicalCount])
        index += historicalCount
        let offersOnlyT0 = protocols.allSatisfy { $0 == 0 }
        // TCK is present unless only T=0 is indicated.
        if !offersOnlyT0 {
            guard index < bytes.count else { throw .missingTCK }
            let checksum = bytes[1...index].reduce(0, ^)
            guard checksum == 0 else { throw .badTCK }
            index += 1
        }
        guard index == bytes.count else { throw .trailingBytes(bytes.count - index) }
        self.bytes = bytes
        self.protocols = protocols.isEmpty ? [0] : protocols
        self.historicalBytes = historical
        self.t1IFSC = (1...254).contains(ifsc) ? ifsc : 254
        self.t1UsesCRC = crc
        self.t1WaitingIntegers = waiting
        self.ta1 = ta1
    }

    /// True when the card offers T=1.
    public var offersT1: Bool { protocols.contains(1) }
}

/// Why an ATR could not be parsed.
public enum ATRParseError: Error, Sendable, Hashable, CustomStringConvertible {
    case tooShort
    case invalidTS(UInt8)
    case truncated
    case missingTCK
    case badTCK
    case trailingBytes(Int)

    public var description: String {
        switch self {
        case .tooShort: "ATR shorter than 2 bytes"
        case .invalidTS(let ts): "ATR TS byte 0x\(hex2(ts)) is neither 3B nor 3F"
        case .truncated: "ATR ends before its interface or historical bytes"
        case .missingTCK: "ATR lacks its TCK checksum byte"
        case .badTCK: "ATR checksum (TCK) is wrong"
        case .trailingBytes(let count): "ATR has \(count) unexpected trailing byte(s)"
        }
    }
}
