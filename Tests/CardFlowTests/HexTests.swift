import Testing

@testable import CardFlow

@Suite struct HexTests {
    @Test func parsesCompactText() throws {
        #expect(try [UInt8](hex: "00A40400") == [0x00, 0xA4, 0x04, 0x00])
    }

    @Test func acceptsLowerCaseAndWhitespaceAnywhere() throws {
        let bytes = try [UInt8](hex: " 00a40400 07 A0000002471001 00\n")
        #expect(bytes == [0x00, 0xA4, 0x04, 0x00, 0x07, 0xA0, 0x00, 0x00, 0x02, 0x47, 0x10, 0x01, 0x00])
        // Whitespace between the two digits of one byte is accepted too.
        #expect(try [UInt8](hex: "a\tB c\r\nD") == [0xAB, 0xCD])
    }

    @Test func reportsInvalidCharacterWithOneBasedPosition() {
        #expect(throws: HexParseError.invalidCharacter("G", position: 7)) { try [UInt8](hex: "00A4 0G") }
        #expect(throws: HexParseError.invalidCharacter("x", position: 2)) { try [UInt8](hex: "0x00") }
        #expect(throws: HexParseError.invalidCharacter("-", position: 3)) { try [UInt8](hex: "00-A4") }
    }

    @Test func positionCountsCharactersNotBytes() {
        // A no-break space is whitespace of 2 UTF-8 bytes but one character.
        #expect(throws: HexParseError.invalidCharacter("Z", position: 4)) { try [UInt8](hex: "\u{00A0}AAZ") }
        #expect(throws: HexParseError.invalidCharacter("é", position: 3)) { try [UInt8](hex: "AAé") }
    }

    @Test func rejectsFullWidthDigits() {
        #expect(throws: HexParseError.invalidCharacter("Ａ", position: 2)) { try [UInt8](hex: "0Ａ") }
    }

    @Test func reportsOddDigitCount() {
        #expect(throws: HexParseError.oddDigitCount(3)) { try [UInt8](hex: "00A") }
        #expect(throws: HexParseError.oddDigitCount(5)) { try [UInt8](hex: "00 A4 0") }
    }

    @Test func invalidCharacterIsReportedBeforeOddCount() {
        #expect(throws: HexParseError.invalidCharacter("g", position: 4)) { try [UInt8](hex: "00Ag") }
    }

    @Test func rejectsEmptyAndWhitespaceOnlyText() {
        #expect(throws: HexParseError.empty) { try [UInt8](hex: "") }
        #expect(throws: HexParseError.empty) { try [UInt8](hex: " \t\n ") }
    }

    @Test("ASCII text gives what the character walk gives: the same bytes, or no bytes where it throws")
    func asciiReadingAgreesWithTheCharacterWalk() throws {
        // Every ASCII byte alone and between digits, then seeded random ASCII texts rich in digits.
        var texts = (0..<128).flatMap { code in
            let character = String(UnicodeScalar(UInt8(code)))
            return [character, "A" + character + "B", "AB" + character, character + "0F", "\r\n" + character + "12"]
        }
        var random = SplitMix64(seed: 0x4845_58)
        let alphabet = Array("0123456789abcdefABCDEF \t\n\r\u{0B}\u{0C}gGxX-\u{1C}\u{1F}\u{7F}\u{00}".utf8)
        for _ in 0..<20_000 {
            let length = Int.random(in: 0...12, using: &random)
            let bytes = (0..<length).map { _ in alphabet[Int.random(in: 0..<alphabet.count, using: &random)] }
            texts.append(String(decoding: bytes, as: UTF8.self))
        }
        for text in texts {
            let walked = try? [UInt8](hexCharacters: text)
            let read = Array(text.utf8).withUnsafeBufferPointer { [UInt8](asciiHex: $0) }
            #expect(read == walked, "\(text.debugDescription)")
            #expect((try? [UInt8](hex: text)) == walked, "\(text.debugDescription)")
        }
        // Non-ASCII whitespace is the character walk's: a no-break space between digits.
        #expect(try [UInt8](hex: "AB\u{00A0}CD") == [0xAB, 0xCD])
    }

    @Test func formatsUpperCase() {
        let bytes: [UInt8] = [0x00, 0xA4, 0x0F, 0xFF]
        #expect(bytes.hexString == "00A40FFF")
        #expect(bytes.spacedHexString == "00 A4 0F FF")
        #expect(bytes[1...2].hexString == "A40F")
        #expect([UInt8]().hexString == "")
        #expect([UInt8]().spacedHexString == "")
    }

    @Test func formattingAndParsingRoundTripEveryByte() throws {
        let everyByte = (0...255).map { UInt8($0) }
        #expect(try [UInt8](hex: everyByte.hexString) == everyByte)
        #expect(try [UInt8](hex: everyByte.spacedHexString) == everyByte)
    }

    @Test func errorDescriptionsSayWhatIsWrong() {
        #expect(HexParseError.empty.description == "hex text is empty")
        #expect(HexParseError.oddDigitCount(3).description == "hex text has an odd number of digits (3)")
        #expect(
            HexParseError.invalidCharacter("G", position: 7).description
                == "invalid character \"G\" at position 7 in hex text")
    }
}
