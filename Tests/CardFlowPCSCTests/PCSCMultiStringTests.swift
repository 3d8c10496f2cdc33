import Testing

@testable import CardFlowPCSCLite

/// The reader list parser never trusts libpcsclite's buffer (no pcscd needed).
@Suite struct PCSCMultiStringTests {
    private func parse(_ text: String) throws(PCSCError) -> [String] {
        try PCSCMultiString.parse(Array(text.utf8), call: .listReaders)
    }

    @Test func parsesNamesUpToTheDoubleNUL() throws {
        #expect(try parse("Reader A 00 00\0Reader B 01 00\0\0") == ["Reader A 00 00", "Reader B 01 00"])
        #expect(try parse("Only\0\0") == ["Only"])
    }

    @Test func anEmptyListIsOneOrTwoNULs() throws {
        #expect(try parse("\0") == [])
        #expect(try parse("\0\0") == [])
    }

    @Test(arguments: [
        ("", "the list is not NUL terminated"),
        ("Reader", "the list is not NUL terminated"),
        ("Reader\0", "the list is not double-NUL terminated"),
        ("A\0\0B\0\0", "an empty name inside the list"),
    ])
    func refusesMalformedLists(_ text: String, _ reason: String) {
        #expect(throws: PCSCError.malformedReply(.listReaders, reason: reason)) { try parse(text) }
    }

    @Test func refusesNamesThatAreNotUTF8OrTooLong() {
        #expect(throws: PCSCError.malformedReply(.listReaders, reason: "a name that is not UTF-8")) {
            try PCSCMultiString.parse([0x41, 0xFF, 0x00, 0x00], call: .listReaders)
        }
        let long = String(repeating: "x", count: 129)
        #expect(throws: PCSCError.malformedReply(.listReaders, reason: "a name of 129 bytes, longer than 128")) {
            try parse(long + "\0\0")
        }
    }

    @Test func boundsTheNumberOfNames() {
        let many = (0...256).map { "R\($0)\0" }.joined() + "\0"
        #expect(throws: PCSCError.malformedReply(.listReaders, reason: "more than 256 names")) { try parse(many) }
    }

    @Test func errorCodesPrintTheirHeaderNames() {
        #expect(PCSCErrorCode.removedCard.description == "SCARD_W_REMOVED_CARD (0x80100069)")
        #expect(PCSCErrorCode(rawValue: 0x8010_0017) == .readerUnavailable)
        #expect(PCSCErrorCode(rawValue: 0x1234).description == "unknown PC/SC code 0x1234")
        #expect(
            PCSCError.failed(.transmit, .noSmartcard).description
                == "SCardTransmit failed: SCARD_E_NO_SMARTCARD (0x8010000C)")
    }
}
