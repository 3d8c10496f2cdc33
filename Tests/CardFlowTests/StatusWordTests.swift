import Testing

@testable import CardFlow

@Suite struct StatusWordTests {
    @Test func splitsIntoSW1AndSW2() {
        let statusWord = StatusWord(sw1: 0x6A, sw2: 0x82)
        #expect(statusWord.rawValue == 0x6A82)
        #expect(statusWord == StatusWord(0x6A82))
        #expect(statusWord == .fileNotFound)
        #expect(statusWord.sw1 == 0x6A)
        #expect(statusWord.sw2 == 0x82)
    }

    @Test func classifiesSuccessAndWarnings() {
        #expect(StatusWord(0x9000).isSuccess)
        #expect(!StatusWord(0x9001).isSuccess)
        #expect(!StatusWord(0x6100).isSuccess)
        #expect(StatusWord(0x6283).isWarning)
        #expect(StatusWord(0x6300).isWarning)
        #expect(StatusWord(0x63C2).isWarning)
        #expect(!StatusWord(0x6400).isWarning)
        #expect(!StatusWord(0x9000).isWarning)
        #expect(!StatusWord(0x6A82).isWarning)
    }

    @Test func readsCountsFromSW2WhereZeroMeans256() {
        #expect(StatusWord(0x6110).bytesAvailable == 16)
        #expect(StatusWord(0x6100).bytesAvailable == 256)
        #expect(StatusWord(0x6C10).bytesAvailable == nil)
        #expect(StatusWord(0x6C08).correctLength == 8)
        #expect(StatusWord(0x6C00).correctLength == 256)
        #expect(StatusWord(0x6110).correctLength == nil)
        #expect(StatusWord(0x9000).bytesAvailable == nil)
        #expect(StatusWord(0x9000).correctLength == nil)
    }

    @Test func readsVerificationCounter() {
        #expect(StatusWord(0x63C3).counter == 3)
        #expect(StatusWord(0x63C0).counter == 0)
        #expect(StatusWord(0x63CF).counter == 15)
        #expect(StatusWord(0x6300).counter == nil)
        #expect(StatusWord(0x6983).counter == nil)
    }

    @Test(
        arguments: [
            (0x9000, "9000 (success)"),
            (0x6A82, "6A82 (file or application not found)"),
            (0x6700, "6700 (wrong length)"),
            (0x6982, "6982 (security status not satisfied)"),
            (0x6D00, "6D00 (instruction code not supported or invalid)"),
            (0x6E00, "6E00 (class not supported)"),
            (0x6A86, "6A86 (incorrect parameters P1-P2)"),
            (0x6985, "6985 (conditions of use not satisfied)"),
            (0x6A80, "6A80 (incorrect parameters in the command data field)"),
            (0x6B00, "6B00 (wrong parameters P1-P2)"),
            (0x6400, "6400 (execution error: non-volatile memory unchanged)"),
            (0x6581, "6581 (memory failure)"),
            (0x6283, "6283 (warning: selected file deactivated)"),
            (0x63C2, "63C2 (verification failed, counter 2)"),
            (0x6110, "6110 (16 response bytes still available)"),
            (0x6C00, "6C00 (wrong Le field; 256 bytes available)"),
            (0x9F10, "9F10"),
            (0x0000, "0000"),
        ] as [(UInt16, String)])
    func describesStatusWord(rawValue: UInt16, expected: String) {
        #expect(StatusWord(rawValue).description == expected)
    }
}

@Suite struct ResponseAPDUTests {
    @Test func splitsDataFromStatusBytes() throws {
        let response = try ResponseAPDU(bytes: [0x6F, 0x00, 0x90, 0x00])
        #expect(response.data == [0x6F, 0x00])
        #expect(response.sw1 == 0x90)
        #expect(response.sw2 == 0x00)
        #expect(response.statusWord == .success)
        #expect(response.encoded() == [0x6F, 0x00, 0x90, 0x00])
    }

    @Test func acceptsStatusBytesWithoutData() throws {
        let response = try ResponseAPDU(hex: "6A 82")
        #expect(response.data.isEmpty)
        #expect(response.statusWord == .fileNotFound)
        #expect(response == ResponseAPDU(statusWord: .fileNotFound))
    }

    @Test(arguments: [[], [0x90]] as [[UInt8]])
    func rejectsFewerThanTwoBytes(bytes: [UInt8]) {
        #expect(throws: APDUParseError.responseTooShort(byteCount: bytes.count)) { try ResponseAPDU(bytes: bytes) }
    }

    @Test func rejectsBadHex() {
        #expect(throws: APDUParseError.invalidHex(.oddDigitCount(3))) { try ResponseAPDU(hex: "900") }
    }

    @Test func descriptionIsSpacedHex() {
        #expect(ResponseAPDU(data: [0x01, 0xAB], sw1: 0x90, sw2: 0x00).description == "01 AB 90 00")
    }

    @Test func throwIfNotSuccessCarriesStatusWordAndCommand() throws {
        let select = try CommandAPDU(hex: "00A40400 07 A0000002471001 00")
        try ResponseAPDU(data: [0x6F], statusWord: .success).throwIfNotSuccess(for: select)

        let expected = CardStatusError(statusWord: .fileNotFound, command: select)
        #expect(throws: expected) { try ResponseAPDU(statusWord: .fileNotFound).throwIfNotSuccess(for: select) }
        #expect(expected.instruction == 0xA4)
        #expect(expected.description == "INS A4 failed: 6A82 (file or application not found)")
        // Warnings are not success either.
        #expect(throws: CardStatusError(statusWord: StatusWord(0x6283), command: select)) {
            try ResponseAPDU(statusWord: StatusWord(0x6283)).throwIfNotSuccess(for: select)
        }
    }
}
