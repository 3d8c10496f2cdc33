/// A command APDU as defined by ISO/IEC 7816-4 section 5.1: a 4-byte header, an optional data
/// field and an optional expected response length.
///
/// The value holds what the command means, not how its lengths are written: ``encoded(forceExtendedLength:)``
/// picks short or extended length fields. Instances are always encodable because the
/// initialisers check the bounds.
public struct CommandAPDU: Hashable, Sendable, CustomStringConvertible {
    /// The largest data field: an extended Lc has 2 bytes.
    public static let maxDataCount = 65_535
    /// The largest expected response length: an extended Le of `0000` means 65536.
    public static let maxExpectedLength = 65_536

    /// Class byte.
    public let cla: UInt8
    /// Instruction byte.
    public let ins: UInt8
    /// First parameter byte.
    public let p1: UInt8
    /// Second parameter byte.
    public let p2: UInt8
    /// Command data field (Nc = `data.count`, 0...65535); empty when there is no Lc field.
    public let data: [UInt8]
    /// Maximum number of response data bytes expected (Ne, 1...65536), or `nil` for no Le field.
    public let le: Int?

    /// Which of the seven ISO/IEC 7816-4 command cases an encoding is.
    ///
    /// Case 1 has neither Lc nor Le, case 2 only Le, case 3 only Lc and data, case 4 all of them;
    /// `S` and `E` tell short and extended length fields apart.
    public enum ISOCase: String, CaseIterable, Hashable, Sendable, CustomStringConvertible {
        case case1 = "1"
        case case2Short = "2S"
        case case3Short = "3S"
        case case4Short = "4S"
        case case2Extended = "2E"
        case case3Extended = "3E"
        case case4Extended = "4E"

        /// Whether the length fields are extended (3-byte Lc, 2- or 3-byte Le).
        public var isExtended: Bool {
            switch self {
            case .case2Extended, .case3Extended, .case4Extended: return true
            case .case1, .case2Short, .case3Short, .case4Short: return false
            }
        }

        /// For example `"case 4S"`.
        public var description: String { "case \(rawValue)" }
    }

    /// Creates a command APDU, checking that it can be encoded.
    ///
    /// - Parameters:
    ///   - cla: the class byte CLA.
    ///   - ins: the instruction byte INS.
    ///   - p1: the parameter byte P1.
    ///   - p2: the parameter byte P2.
    ///   - data: the command data field, at most 65535 bytes.
    ///   - le: the expected response length in `1...65536`, or `nil` for no Le field.
    ///     Ne = 256 and Ne = 65536 are the values written as `00` and `0000`.
    /// - Throws: ``APDULengthError`` when `data` or `le` are out of bounds.
    public init(
        cla: UInt8,
        ins: UInt8,
        p1: UInt8,
        p2: UInt8,
        data: [UInt8] = [],
        le: Int? = nil
    ) throws(APDULengthError) {
        guard data.count <= Self.maxDataCount else { throw .dataTooLong(count: data.count) }
        if let le, !(1...Self.maxExpectedLength).contains(le) { throw .expectedLengthOutOfRange(le) }
        self.init(validatedCLA: cla, ins: ins, p1: p1, p2: p2, data: data, le: le)
    }

    /// Skips the bounds checks; only for values already known to be in range.
    init(validatedCLA cla: UInt8, ins: UInt8, p1: UInt8, p2: UInt8, data: [UInt8], le: Int?) {
        self.cla = cla
        self.ins = ins
        self.p1 = p1
        self.p2 = p2
        self.data = data
        self.le = le
    }

    /// Whether the command only fits extended length fields (more than 255 data bytes or Ne above 256).
    public var requiresExtendedLength: Bool {
        data.count > 255 || (le ?? 0) > 256
    }

    /// The ISO case of the encoding ``encoded(forceExtendedLength:)`` produces.
    public func isoCase(forceExtendedLength: Bool = false) -> ISOCase {
        let extended = forceExtendedLength || requiresExtendedLength
        switch (data.isEmpty, le == nil) {
        case (true, true): return .case1
        case (true, false): return extended ? .case2Extended : .case2Short
        case (false, true): return extended ? .case3Extended : .case3Short
        case (false, false): return extended ? .case4Extended : .case4Short
        }
    }

    /// The spare capacity of ``encoded(forceExtendedLength:)``'s array: a CCID message header.
    private static let transportHeaderRoom = 10

    /// The command's bytes.
    ///
    /// Short length fields are used when the data field has at most 255 bytes and Ne is at most
    /// 256; otherwise, or when `forceExtendedLength` is set, both Lc and Le are extended, as
    /// ISO/IEC 7816-4 does not mix the two forms. A case 1 command has no length fields, so the
    /// flag does not change it.
    ///
    /// The array has room for 10 more bytes, so a backend that is handed it can put its message
    /// header in front without allocating (the CCID driver does).
    public func encoded(forceExtendedLength: Bool = false) -> [UInt8] {
        let extended = forceExtendedLength || requiresExtendedLength
        // Reserved before the first byte: one allocation per command (a literal first would be
        // two), with room for a transport's message header, which a backend given the array can
        // then write in front of the command in place (CCID's 10 bytes; issue 40).
        var bytes: [UInt8] = []
        bytes.reserveCapacity(4 + 3 + data.count + 2 + Self.transportHeaderRoom)
        bytes.append(cla)
        bytes.append(ins)
        bytes.append(p1)
        bytes.append(p2)
        if !data.isEmpty {
            if extended {
                bytes.append(0x00)
                bytes.append(UInt8(truncatingIfNeeded: data.count >> 8))
                bytes.append(UInt8(truncatingIfNeeded: data.count))
            } else {
                bytes.append(UInt8(truncatingIfNeeded: data.count))
            }
            bytes += data
        }
        if let le {
            // Truncation writes 256 as 00 and 65536 as 0000, which is how ISO encodes the maxima.
            if extended {
                if data.isEmpty { bytes.append(0x00) }
                bytes.append(UInt8(truncatingIfNeeded: le >> 8))
                bytes.append(UInt8(truncatingIfNeeded: le))
            } else {
                bytes.append(UInt8(truncatingIfNeeded: le))
            }
        }
        return bytes
    }

    /// Parses a command APDU in any of the seven ISO/IEC 7816-4 cases.
    ///
    /// The body after the header is read as section 5.1 lays out: no body is case 1; one byte is
    /// a short Le (case 2S); a first byte other than `00` is a short Lc, followed by that many
    /// data bytes and at most a 1-byte Le (cases 3S, 4S); a first byte `00` with at least two more
    /// starts an extended field: `00 Le1 Le2` alone is case 2E, otherwise `00 Lc1 Lc2` with a
    /// non-zero Lc, the data and at most a 2-byte Le (cases 3E, 4E).
    ///
    /// - Throws: ``APDUParseError`` naming the first inconsistency found.
    public init(bytes: [UInt8]) throws(APDUParseError) {
        guard bytes.count >= 4 else { throw .commandTooShort(byteCount: bytes.count) }
        let body = bytes[4...]
        let start = body.startIndex
        var data: [UInt8] = []
        var le: Int?

        if body.isEmpty {
            // Case 1.
        } else if body.count == 1 {
            le = Self.shortLe(body[start])
        } else if body[start] != 0x00 {
            let lc = Int(body[start])
            let afterLc = body.count - 1
            guard afterLc >= lc else { throw .dataLengthMismatch(declared: lc, available: afterLc) }
            data = Array(body[(start + 1)..<(start + 1 + lc)])
            switch afterLc - lc {
            case 0: break
            case 1: le = Self.shortLe(body[body.endIndex - 1])
            case let rest: throw .trailingBytes(count: rest - 1)
            }
        } else {
            guard body.count >= 3 else { throw .incompleteExtendedLength(byteCount: body.count) }
            let length = Int(body[start + 1]) << 8 | Int(body[start + 2])
            if body.count == 3 {
                le = length == 0 ? Self.maxExpectedLength : length
            } else {
                guard length != 0 else { throw .zeroExtendedLc }
                let afterLc = body.count - 3
                guard afterLc >= length else { throw .dataLengthMismatch(declared: length, available: afterLc) }
                data = Array(body[(start + 3)..<(start + 3 + length)])
                switch afterLc - length {
                case 0: break
                case 1: throw .incompleteExtendedLe
                case 2:
                    let value = Int(body[body.endIndex - 2]) << 8 | Int(body[body.endIndex - 1])
                    le = value == 0 ? Self.maxExpectedLength : value
                case let rest: throw .trailingBytes(count: rest - 2)
                }
            }
        }
        self.init(validatedCLA: bytes[0], ins: bytes[1], p1: bytes[2], p2: bytes[3], data: data, le: le)
    }

    /// Parses a command APDU from hex text such as `"00A40400 07 A0000002471001 00"`.
    ///
    /// - Throws: ``APDUParseError/invalidHex(_:)`` for bad text, otherwise as ``init(bytes:)``.
    public init(hex text: String) throws(APDUParseError) {
        try self.init(bytes: try APDUParseError.bytes(hex: text))
    }

    /// A short Le byte of `00` means 256.
    private static func shortLe(_ byte: UInt8) -> Int {
        byte == 0 ? 256 : Int(byte)
    }

    /// The encoded bytes as spaced hex, e.g. `"00 A4 04 00 02 3F 00 00"`.
    public var description: String {
        encoded().spacedHexString
    }
}
