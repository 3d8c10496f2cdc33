import CardFlow

/// How a sweep makes APDUs of a given size, and which sizes a card answers.
public enum SweepProbeKind: String, Sendable, Hashable, CaseIterable {
    /// CardFlow's APDU test card (`sim:apdu-test`, or a card with its applet): SINK takes any
    /// command data, PATTERN answers any length up to 4096. Both directions, extended too.
    case apduTest = "apdu-test"
    /// READ BINARY of a transparent EF the user names: the answer grows (read only).
    case readBinary = "read-binary"
    /// UPDATE BINARY of that EF: the command grows. A write, only with `--allow-write`.
    case updateBinary = "update-binary"
    /// SELECT by DF name with a name of N bytes that no card has: the command grows, the card
    /// answers an error status word and nothing changes. At T=0 a card may refuse the header
    /// before the data is sent, which shows as no cost per byte.
    case selectName = "select-name"
}

/// One direction of a sweep: the APDU for each size and what a correct answer looks like.
public struct SweepProbe: Sendable {
    public let kind: SweepProbeKind
    public let direction: SweepDirection
    /// Sent once before this direction's sizes (SELECT of the file or application).
    public let preparation: [CommandAPDU]
    /// The largest size this probe makes in short APDUs, and with extended lengths.
    public let maximumShort: Int
    public let maximumExtended: Int
    private let make: @Sendable (Int) throws -> CommandAPDU
    private let check: @Sendable (ResponseAPDU, Int) -> Bool

    init(
        kind: SweepProbeKind, direction: SweepDirection, preparation: [CommandAPDU] = [], maximumShort: Int,
        maximumExtended: Int, make: @escaping @Sendable (Int) throws -> CommandAPDU,
        check: @escaping @Sendable (ResponseAPDU, Int) -> Bool
    ) {
        self.kind = kind
        self.direction = direction
        self.preparation = preparation
        self.maximumShort = maximumShort
        self.maximumExtended = maximumExtended
        self.make = make
        self.check = check
    }

    /// The command for `size` data bytes (command direction) or answer bytes (response direction).
    ///
    /// - Parameter size: the data length.
    /// - Returns: the command.
    public func command(size: Int) throws -> CommandAPDU { try make(size) }

    /// Whether `answer` is what the probe expects for `size` (a wrong length would make the
    /// point meaningless).
    ///
    /// - Parameters:
    ///   - answer: the card's answer.
    ///   - size: the size asked for.
    /// - Returns: whether the point counts.
    public func accepts(_ answer: ResponseAPDU, size: Int) -> Bool { check(answer, size) }

    /// The APDU test card's SINK (`80 30 00 00 Lc data`): command data of any length, answered `90 00`.
    ///
    /// - Parameter data: where command data comes from (seeded).
    /// - Returns: the probe.
    public static func apduTestSink(data: SweepData) -> SweepProbe {
        SweepProbe(
            kind: .apduTest, direction: .command, maximumShort: 255, maximumExtended: 65_535,
            make: { size in try CommandAPDU(cla: 0x80, ins: 0x30, p1: 0, p2: 0, data: data.bytes(size)) },
            check: { answer, _ in answer.sw1 == 0x90 && answer.sw2 == 0x00 })
    }

    /// The APDU test card's PATTERN (`80 20 00 00 Le`): exactly Le bytes back (up to 4096).
    public static let apduTestPattern = SweepProbe(
        kind: .apduTest, direction: .response, maximumShort: 256, maximumExtended: 4096,
        make: { size in try CommandAPDU(cla: 0x80, ins: 0x20, p1: 0, p2: 0, le: size) },
        check: { answer, size in answer.sw1 == 0x90 && answer.sw2 == 0x00 && answer.data.count == size })

    /// READ BINARY of the EF `fileID` from offset 0 (the file must hold the largest size).
    ///
    /// - Parameter fileID: the EF's two-byte identifier.
    /// - Returns: the probe.
    /// - Throws: ``/CardFlow/APDULengthError`` when the identifier is longer than an APDU carries.
    public static func readBinary(fileID: [UInt8]) throws -> SweepProbe {
        SweepProbe(
            kind: .readBinary, direction: .response, preparation: [try selectFile(fileID)], maximumShort: 256,
            maximumExtended: 32_767,
            make: { size in try CommandAPDU(cla: 0x00, ins: 0xB0, p1: 0, p2: 0, le: size) },
            check: { answer, size in answer.sw1 == 0x90 && answer.sw2 == 0x00 && answer.data.count == size })
    }

    /// UPDATE BINARY of the EF `fileID` from offset 0: writes seeded bytes.
    ///
    /// - Parameters:
    ///   - fileID: the EF's two-byte identifier.
    ///   - data: where the written bytes come from.
    /// - Returns: the probe.
    /// - Throws: ``/CardFlow/APDULengthError`` when the identifier is longer than an APDU carries.
    public static func updateBinary(fileID: [UInt8], data: SweepData) throws -> SweepProbe {
        SweepProbe(
            kind: .updateBinary, direction: .command, preparation: [try selectFile(fileID)], maximumShort: 255,
            maximumExtended: 32_767,
            make: { size in try CommandAPDU(cla: 0x00, ins: 0xD6, p1: 0, p2: 0, data: data.bytes(size)) },
            check: { answer, _ in answer.sw1 == 0x90 && answer.sw2 == 0x00 })
    }

    /// SELECT by DF name (`00 A4 04 0C Lc name`) with a name no card has: any status word counts.
    ///
    /// - Parameter data: where the names come from.
    /// - Returns: the probe.
    public static func selectName(data: SweepData) -> SweepProbe {
        SweepProbe(
            kind: .selectName, direction: .command, maximumShort: 255, maximumExtended: 255,
            make: { size in
                // F0 "CFB" marks a proprietary name that is ours; the rest is seeded filler.
                let name = Array(([0xF0, 0x43, 0x46, 0x42] + data.bytes(max(0, size - 4))).prefix(size))
                return try CommandAPDU(cla: 0x00, ins: 0xA4, p1: 0x04, p2: 0x0C, data: name)
            },
            check: { _, _ in true })
    }

    static func selectFile(_ fileID: [UInt8]) throws -> CommandAPDU {
        // SELECT EF by file identifier, no answer data (P2 0C).
        return try CommandAPDU(cla: 0x00, ins: 0xA4, p1: 0x02, p2: 0x0C, data: fileID)
    }
}

/// Seeded bytes for command data: the same `--seed` gives the same APDUs (SplitMix64).
public struct SweepData: Sendable, Hashable {
    public let seed: UInt64

    /// - Parameter seed: the seed.
    public init(seed: UInt64) { self.seed = seed }

    /// The first `count` bytes of the seed's stream.
    ///
    /// - Parameter count: how many.
    /// - Returns: the bytes.
    public func bytes(_ count: Int) -> [UInt8] {
        var state = seed
        var bytes: [UInt8] = []
        bytes.reserveCapacity(count)
        while bytes.count < count {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            z ^= z >> 31
            withUnsafeBytes(of: z.littleEndian) { bytes.append(contentsOf: $0.prefix(count - bytes.count)) }
        }
        return bytes
    }
}
