import Testing

@testable import CardFlow

/// A command, its exact encoding and the ISO case of that encoding.
struct EncodingVector: Sendable, CustomTestStringConvertible {
    let command: CommandAPDU
    let hex: String
    let isoCase: CommandAPDU.ISOCase
    var forceExtendedLength = false

    var testDescription: String { "\(isoCase) \(hex.prefix(40))" }
}

private let aid: [UInt8] = [0xA0, 0x00, 0x00, 0x02, 0x47, 0x10, 0x01]
private let bytes256 = (0..<256).map { UInt8($0) }
private let bytes300 = (0..<300).map { UInt8(truncatingIfNeeded: $0 * 7) }

private func command(
    cla: UInt8 = 0x00, ins: UInt8, _ p1: UInt8 = 0, _ p2: UInt8 = 0, data: [UInt8] = [], le: Int? = nil
) -> CommandAPDU {
    // Test vectors are in range; a mistake here should fail loudly, not be skipped.
    do {
        return try CommandAPDU(cla: cla, ins: ins, p1: p1, p2: p2, data: data, le: le)
    } catch {
        fatalError("bad test vector: \(error)")
    }
}

private let encodingVectors: [EncodingVector] = [
    EncodingVector(command: command(ins: 0xA4, 0x04, 0x00), hex: "00A40400", isoCase: .case1),
    EncodingVector(
        command: command(ins: 0xA4, 0x04, 0x00), hex: "00A40400", isoCase: .case1, forceExtendedLength: true),
    EncodingVector(command: command(ins: 0xB0, le: 1), hex: "00B00000 01", isoCase: .case2Short),
    EncodingVector(command: command(ins: 0xB0, le: 16), hex: "00B00000 10", isoCase: .case2Short),
    EncodingVector(command: command(ins: 0xB0, le: 256), hex: "00B00000 00", isoCase: .case2Short),
    EncodingVector(
        command: command(cla: 0x80, ins: 0xCA, 0x9F, 0x7F, data: [0x3F, 0x00]), hex: "80CA9F7F 02 3F00",
        isoCase: .case3Short),
    EncodingVector(
        command: command(ins: 0xD6, data: Array(bytes256.prefix(255))),
        hex: "00D60000 FF" + bytes256.prefix(255).hexString, isoCase: .case3Short),
    EncodingVector(
        command: command(ins: 0xA4, 0x04, 0x00, data: aid, le: 256), hex: "00A40400 07 A0000002471001 00",
        isoCase: .case4Short),
    EncodingVector(
        command: command(ins: 0xA4, 0x04, 0x0C, data: aid, le: 1), hex: "00A4040C 07 A0000002471001 01",
        isoCase: .case4Short),
    EncodingVector(command: command(ins: 0xB0, le: 257), hex: "00B00000 000101", isoCase: .case2Extended),
    EncodingVector(command: command(ins: 0xB0, le: 65_535), hex: "00B00000 00FFFF", isoCase: .case2Extended),
    EncodingVector(command: command(ins: 0xB0, le: 65_536), hex: "00B00000 000000", isoCase: .case2Extended),
    EncodingVector(
        command: command(ins: 0xB0, le: 256), hex: "00B00000 000100", isoCase: .case2Extended, forceExtendedLength: true
    ),
    EncodingVector(
        command: command(ins: 0xB0, le: 1), hex: "00B00000 000001", isoCase: .case2Extended, forceExtendedLength: true),
    EncodingVector(
        command: command(ins: 0xD6, data: bytes256), hex: "00D60000 000100" + bytes256.hexString,
        isoCase: .case3Extended),
    EncodingVector(
        command: command(ins: 0xD6, data: [0x01]), hex: "00D60000 000001 01", isoCase: .case3Extended,
        forceExtendedLength: true),
    EncodingVector(
        command: command(ins: 0xCB, 0x3F, 0xFF, data: bytes300, le: 65_536),
        hex: "00CB3FFF 00012C" + bytes300.hexString + "0000", isoCase: .case4Extended),
    EncodingVector(
        command: command(ins: 0x2A, 0x9E, 0x9A, data: [1, 2, 3, 4, 5], le: 1000),
        hex: "002A9E9A 000005 0102030405 03E8", isoCase: .case4Extended),
    EncodingVector(
        command: command(ins: 0x2A, 0x9E, 0x9A, data: [1, 2, 3, 4, 5], le: 256), hex: "002A9E9A 000005 0102030405 0100",
        isoCase: .case4Extended, forceExtendedLength: true),
    EncodingVector(
        command: command(ins: 0x2A, data: bytes256, le: 256), hex: "002A0000 000100" + bytes256.hexString + "0100",
        isoCase: .case4Extended),
]

@Suite struct CommandAPDUEncodingTests {
    @Test(arguments: encodingVectors)
    func encodesByteExact(vector: EncodingVector) throws {
        let expected = try [UInt8](hex: vector.hex)
        #expect(vector.command.encoded(forceExtendedLength: vector.forceExtendedLength) == expected)
        #expect(vector.command.isoCase(forceExtendedLength: vector.forceExtendedLength) == vector.isoCase)
    }

    @Test(arguments: encodingVectors)
    func parsesBackToTheSameCommand(vector: EncodingVector) throws {
        let parsed = try CommandAPDU(hex: vector.hex)
        #expect(parsed == vector.command)
        #expect(parsed.encoded(forceExtendedLength: vector.isoCase.isExtended) == (try [UInt8](hex: vector.hex)))
    }

    @Test func vectorsCoverEveryISOCase() {
        #expect(Set(encodingVectors.map(\.isoCase)) == Set(CommandAPDU.ISOCase.allCases))
    }

    @Test func largestCommandUsesFullExtendedLengths() throws {
        let data = [UInt8](repeating: 0x5A, count: 65_535)
        let largest = try CommandAPDU(cla: 0x00, ins: 0xDA, p1: 0x01, p2: 0x02, data: data, le: 65_536)
        let encoded = largest.encoded()
        #expect(encoded.count == 4 + 3 + 65_535 + 2)
        #expect(Array(encoded.prefix(7)) == [0x00, 0xDA, 0x01, 0x02, 0x00, 0xFF, 0xFF])
        #expect(Array(encoded.suffix(2)) == [0x00, 0x00])
        #expect(try CommandAPDU(bytes: encoded) == largest)
    }

    @Test func shortFormIsUsedUpTo255DataBytesAnd256ExpectedBytes() throws {
        #expect(
            try CommandAPDU(cla: 0, ins: 1, p1: 0, p2: 0, data: Array(repeating: 1, count: 255), le: 256).isoCase()
                == .case4Short)
        #expect(
            try CommandAPDU(cla: 0, ins: 1, p1: 0, p2: 0, data: Array(repeating: 1, count: 256), le: 1).isoCase()
                == .case4Extended)
        #expect(try CommandAPDU(cla: 0, ins: 1, p1: 0, p2: 0, data: [1], le: 257).isoCase() == .case4Extended)
        #expect(try CommandAPDU(cla: 0, ins: 1, p1: 0, p2: 0, data: [1], le: 257).requiresExtendedLength)
        #expect(try !CommandAPDU(cla: 0, ins: 1, p1: 0, p2: 0, data: [1], le: 256).requiresExtendedLength)
    }

    @Test func descriptionIsSpacedHex() throws {
        let select = try CommandAPDU(cla: 0x00, ins: 0xA4, p1: 0x00, p2: 0x0C, data: [0x3F, 0x00])
        #expect(select.description == "00 A4 00 0C 02 3F 00")
        #expect(CommandAPDU.ISOCase.case4Extended.description == "case 4E")
    }
}

@Suite struct CommandAPDUValidationTests {
    @Test func rejectsDataLongerThan65535Bytes() {
        #expect(throws: APDULengthError.dataTooLong(count: 65_536)) {
            try CommandAPDU(cla: 0, ins: 0xD6, p1: 0, p2: 0, data: Array(repeating: 0, count: 65_536))
        }
    }

    @Test(arguments: [0, -1, 65_537, Int.max, Int.min])
    func rejectsExpectedLengthOutOfRange(le: Int) {
        #expect(throws: APDULengthError.expectedLengthOutOfRange(le)) {
            try CommandAPDU(cla: 0, ins: 0xB0, p1: 0, p2: 0, le: le)
        }
    }

    @Test(arguments: [nil, 1, 256, 257, 65_536] as [Int?])
    func acceptsExpectedLengthInRange(le: Int?) throws {
        #expect(try CommandAPDU(cla: 0, ins: 0xB0, p1: 0, p2: 0, le: le).le == le)
    }

    @Test func errorDescriptionsSayWhatIsWrong() {
        #expect(
            APDULengthError.dataTooLong(count: 70_000).description == "command data has 70000 bytes; at most 65535 fit")
        #expect(APDULengthError.expectedLengthOutOfRange(0).description.contains("0 is outside 1...65536"))
    }
}

@Suite struct CommandAPDUParsingTests {
    @Test(arguments: [
        ("", APDUParseError.invalidHex(.empty)),
        ("00A4 0G", .invalidHex(.invalidCharacter("G", position: 7))),
        ("00A40", .invalidHex(.oddDigitCount(5))),
        ("00", .commandTooShort(byteCount: 1)),
        ("00A404", .commandTooShort(byteCount: 3)),
        // Lc announces more bytes than follow.
        ("00A40400 05 0102", .dataLengthMismatch(declared: 5, available: 2)),
        ("00A40400 02 01", .dataLengthMismatch(declared: 2, available: 1)),
        ("00A40400 000003 0102", .dataLengthMismatch(declared: 3, available: 2)),
        // Lc announces fewer bytes than follow: one extra is a short Le, more are left over.
        ("00A40400 01 AA BB CC", .trailingBytes(count: 1)),
        ("00A40400 02 0102 00 00 00", .trailingBytes(count: 2)),
        ("00A40400 000002 0102 0000 00", .trailingBytes(count: 1)),
        ("00A40400 000001 01 0000 0000", .trailingBytes(count: 2)),
        // A short Lc of 00 is invalid; 00 starts an extended field that needs 3 bytes.
        ("00A40400 00 01", .incompleteExtendedLength(byteCount: 2)),
        ("00A40400 0000", .incompleteExtendedLength(byteCount: 2)),
        ("00A40400 000000 01", .zeroExtendedLc),
        ("00A40400 000000 0000", .zeroExtendedLc),
        // An extended Le has 2 bytes.
        ("00A40400 000002 0102 00", .incompleteExtendedLe),
    ])
    func rejectsMalformedCommand(hex: String, expected: APDUParseError) {
        #expect(throws: expected) { try CommandAPDU(hex: hex) }
    }

    @Test func oneByteMoreThanLcIsAShortLe() throws {
        let parsed = try CommandAPDU(hex: "00A40400 01 AA BB")
        #expect(parsed.data == [0xAA])
        #expect(parsed.le == 0xBB)
    }

    @Test func readsShortAndExtendedLeOfZeroAsTheMaximum() throws {
        #expect(try CommandAPDU(hex: "00B00000 00").le == 256)
        #expect(try CommandAPDU(hex: "00B00000 000000").le == 65_536)
        #expect(try CommandAPDU(hex: "00D60000 01 AA 00").le == 256)
        #expect(try CommandAPDU(hex: "00D60000 000001 AA 0000").le == 65_536)
    }

    @Test func rejectsExtendedDataOneByteShortOfLc() throws {
        let bytes = try [UInt8](hex: "00D60000 00FFFF") + [UInt8](repeating: 0x11, count: 65_534)
        #expect(throws: APDUParseError.dataLengthMismatch(declared: 65_535, available: 65_534)) {
            try CommandAPDU(bytes: bytes)
        }
    }

    @Test func errorDescriptionsSayWhatIsWrong() {
        #expect(
            APDUParseError.dataLengthMismatch(declared: 5, available: 2).description
                == "Lc says 5 data bytes but 2 follow")
        #expect(
            APDUParseError.commandTooShort(byteCount: 3).description
                == "command APDU has 3 bytes; need 4 header bytes (CLA INS P1 P2)")
        #expect(APDUParseError.trailingBytes(count: 2).description == "2 unexpected bytes after the Le field")
        #expect(
            APDUParseError.invalidHex(.invalidCharacter("G", position: 7)).description
                == "invalid character \"G\" at position 7 in hex text")
    }
}
