import CardFlowHex
import Testing

/// The one hex formatter the layers below CardFlow share (CCID, PCSC and VPCD log with it).
@Suite("Hex formatting below CardFlow")
struct HexFormatTests {
    @Test func integersArePaddedToTheirWidth() {
        #expect(HexFormat.digits(UInt8(0x0A)) == "0A")
        #expect(HexFormat.digits(UInt8.max) == "FF")
        #expect(HexFormat.digits(UInt16(0x072F)) == "072F")
        #expect(HexFormat.digits(UInt16(0)) == "0000")
        #expect(HexFormat.digits(UInt32(0x1234_ABCD)) == "1234ABCD")
        #expect(HexFormat.digits(UInt64.max) == String(repeating: "F", count: 16))
    }

    @Test func bytesCompactAndSpaced() {
        #expect(HexFormat.string([UInt8]()) == "")
        #expect(HexFormat.string([UInt8](), spaced: true) == "")
        #expect(HexFormat.string([0x3B, 0x81, 0x80, 0x01]) == "3B818001")
        #expect(HexFormat.string([0x3B, 0x81, 0x80, 0x01], spaced: true) == "3B 81 80 01")
        #expect(HexFormat.string([0x00], spaced: true) == "00")
    }

    @Test func everyByteMatchesTheStandardLibrary() {
        for value in UInt8.min...UInt8.max {
            let expected = String(value, radix: 16, uppercase: true)
            #expect(HexFormat.digits(value) == (expected.count == 1 ? "0" + expected : expected))
        }
    }
}
