/// The parts of an ISO/IEC 7816-3 answer to reset (§8.2): TS, T0, the interface byte groups,
/// the historical bytes and TCK, as far as naming a card needs them.
///
/// This is the structure only, read leniently: a wrong TCK is recorded in ``checksumIsValid``
/// rather than refused, because a card can still be recognised by an ATR a reader mangled. The
/// CCID driver's own `AnswerToReset` reads the transmission parameters it needs to drive a card.
///
/// ```swift
/// let layout = try ATRLayout(bytes: [0x3B, 0x81, 0x80, 0x01, 0x80, 0x80])
/// layout.historicalBytes   // [0x80]
/// layout.protocols         // [0, 1]
/// ```
public struct ATRLayout: Sendable, Hashable {
    /// One interface byte group: TAi, TBi, TCi and TDi, each present or not.
    public struct InterfaceGroup: Sendable, Hashable {
        /// The group's number i (1 for TA1…TD1).
        public let index: Int
        /// TAi (TA1: Fi and Di; later groups: protocol specific, e.g. IFSC for T=1).
        public let ta: UInt8?
        /// TBi.
        public let tb: UInt8?
        /// TCi (TC1: extra guard time).
        public let tc: UInt8?
        /// TDi: the next group's presence bits (high nibble) and a protocol number (low nibble).
        public let td: UInt8?
    }

    /// The raw bytes.
    public let bytes: [UInt8]
    /// Interface byte groups in order; the first is always there (possibly empty).
    public let interfaceGroups: [InterfaceGroup]
    /// The protocols TD1, TD2, … name (T=0 first when TD1 is absent), in order, repeats kept.
    public let protocols: [UInt8]
    /// The historical bytes (T0's low nibble counts them).
    public let historicalBytes: [UInt8]
    /// TCK, present unless T=0 is the only protocol indicated.
    public let checkByte: UInt8?
    /// True when TCK is absent (and not required) or the XOR of T0…TCK is zero.
    public let checksumIsValid: Bool

    /// Splits `bytes` into an ATR's parts.
    ///
    /// - Throws: ``ATRLayoutError`` for a TS other than 3B/3F, or bytes that end before the
    ///   interface or historical bytes T0 and TDi announce, or that go on after TCK.
    public init(bytes: [UInt8]) throws(ATRLayoutError) {
        guard bytes.count >= 2 else { throw .tooShort(bytes.count) }
        guard bytes[0] == 0x3B || bytes[0] == 0x3F else { throw .invalidInitialCharacter(bytes[0]) }
        var index = 2
        var indicator = bytes[1]
        var groups: [InterfaceGroup] = []
        var protocols: [UInt8] = []
        func next() throws(ATRLayoutError) -> UInt8 {
            guard index < bytes.count else { throw .truncated }
            defer { index += 1 }
            return bytes[index]
        }
        while true {
            let presence = indicator >> 4
            let ta = presence & 0x1 != 0 ? try next() : nil
            let tb = presence & 0x2 != 0 ? try next() : nil
            let tc = presence & 0x4 != 0 ? try next() : nil
            let td = presence & 0x8 != 0 ? try next() : nil
            groups.append(InterfaceGroup(index: groups.count + 1, ta: ta, tb: tb, tc: tc, td: td))
            guard let td else { break }
            protocols.append(td & 0x0F)
            indicator = td
        }
        let historicalCount = Int(bytes[1] & 0x0F)
        guard index + historicalCount <= bytes.count else { throw .truncated }
        let historical = Array(bytes[index..<index + historicalCount])
        index += historicalCount
        var checkByte: UInt8?
        var valid = true
        if protocols.contains(where: { $0 != 0 }) {
            guard index < bytes.count else { throw .missingCheckByte }
            checkByte = bytes[index]
            valid = bytes[1...index].reduce(0, ^) == 0
            index += 1
        }
        guard index == bytes.count else { throw .trailingBytes(bytes.count - index) }
        self.bytes = bytes
        self.interfaceGroups = groups
        self.protocols = protocols.isEmpty ? [0] : protocols
        self.historicalBytes = historical
        self.checkByte = checkByte
        self.checksumIsValid = valid
    }

    /// True when any TAi, TBi or TCi is present (a PC/SC part 3 contactless ATR has none: only
    /// TD1 and TD2).
    public var hasParameterBytes: Bool {
        interfaceGroups.contains { $0.ta != nil || $0.tb != nil || $0.tc != nil }
    }
}

/// Why bytes are not an answer to reset.
public enum ATRLayoutError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Fewer than TS and T0.
    case tooShort(Int)
    /// TS is neither 3B (direct convention) nor 3F (inverse convention).
    case invalidInitialCharacter(UInt8)
    /// The bytes end before the interface or historical bytes that T0 and TDi announce.
    case truncated
    /// A protocol other than T=0 is indicated but TCK is missing.
    case missingCheckByte
    /// Bytes follow the last byte the ATR announces.
    case trailingBytes(Int)

    public var description: String {
        switch self {
        case .tooShort(let count): "an ATR has at least 2 bytes (TS and T0); got \(count)"
        case .invalidInitialCharacter(let ts): "ATR starts with \([ts].hexString), not 3B or 3F"
        case .truncated: "ATR ends before the interface or historical bytes it announces"
        case .missingCheckByte: "ATR lacks its check byte TCK"
        case .trailingBytes(let count): "ATR has \(count) byte(s) after its last announced byte"
        }
    }
}
