/// An ISO/IEC 7816-3 answer to reset, parsed as far as a CCID host needs it: the protocols the
/// card offers, the global bytes that set speed, guard time and clock stop, the T=0 and T=1
/// parameters of a TPDU-level exchange, and the historical bytes.
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
    /// TC1: the extra guard time N (0…254; 255 means the minimum guard time), when present.
    public let tc1: UInt8?
    /// TA2, the specific mode byte, when present: the card runs one protocol at the TA1 speed
    /// and takes no PPS.
    public let ta2: UInt8?
    /// TC2: the T=0 waiting integer WI, when present (10 when absent).
    public let tc2: UInt8?
    /// The first TA for T=15 (i >= 3): clock stop indicator in bits 8–7, class indicator in
    /// bits 6–1.
    public let t15FirstTA: UInt8?

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
        var tc1: UInt8?
        var ta2: UInt8?
        var tc2: UInt8?
        var t15FirstTA: UInt8?
        var interfaceGroup = 1
        var sawIFSC = false
        var sawEDC = false
        index = 2
        while true {
            let y = td >> 4
            var ta: UInt8?
            var tc: UInt8?
            var tb: UInt8?
            if y & 0x1 != 0 { guard index < bytes.count else { throw .truncated }; ta = bytes[index]; index += 1 }
            if y & 0x2 != 0 { guard index < bytes.count else { throw .truncated }; tb = bytes[index]; index += 1 }
            if y & 0x4 != 0 { guard index < bytes.count else { throw .truncated }; tc = bytes[index]; index += 1 }
            if interfaceGroup == 1 { ta1 = ta; tc1 = tc }
            if interfaceGroup == 2 { ta2 = ta; tc2 = tc }
            if interfaceGroup >= 3, protocols.last == 15, t15FirstTA == nil { t15FirstTA = ta }
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
        self.tc1 = tc1
        self.ta2 = ta2
        self.tc2 = tc2
        self.t15FirstTA = t15FirstTA
    }

    /// True when the card offers T=1.
    public var offersT1: Bool { protocols.contains(1) }

    /// True when TS is 3F (inverse convention).
    public var usesInverseConvention: Bool { bytes[0] == 0x3F }

    /// The protocol the card runs after reset when no PPS exchange follows: the one TD1
    /// names (T=0 when TD1 is absent or names T=15, which ISO/IEC 7816-3 does not allow there).
    public var defaultProtocol: TransmissionProtocol {
        protocols.first.flatMap { TransmissionProtocol(rawValue: $0) } ?? .t0
    }

    /// The transmission protocols the card offers, in ATR order (T=15 and unknown protocols
    /// left out; T=0 when the ATR names none).
    public var offeredProtocols: [TransmissionProtocol] {
        var offered: [TransmissionProtocol] = []
        for number in protocols {
            if let known = TransmissionProtocol(rawValue: number), !offered.contains(known) { offered.append(known) }
        }
        return offered.isEmpty ? [.t0] : offered
    }

    /// The card's speed from TA1, or the default factors when TA1 is absent.
    public var maximumFactors: TransmissionFactors { ta1.map(TransmissionFactors.init(rawValue:)) ?? .default }

    /// Specific mode (TA2 present): the protocol the card is fixed to, whether it may switch
    /// to negotiable mode (bit 8 clear), and whether its parameters are implicit (bit 5 set)
    /// rather than those of the interface bytes.
    public var specificMode: (protocol: UInt8, canChange: Bool, implicitParameters: Bool)? {
        ta2.map { ($0 & 0x0F, $0 & 0x80 == 0, $0 & 0x10 != 0) }
    }

    /// The CCID bClockStop value from the T=15 clock stop indicator (bits 8–7 of the first TA
    /// for T=15): 0 not supported, 1 stop with the clock low, 2 high, 3 either. 0 when absent.
    public var clockStop: UInt8 { (t15FirstTA ?? 0) >> 6 }
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
