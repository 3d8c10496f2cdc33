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
        #expect(HexFormat.digits(UInt64(0x0123_4567_89AB_CDEF)) == "0123456789ABCDEF")
        // Wider than 64 bits takes the byte path: still zero-padded, most significant first.
        #expect(HexFormat.digits(UInt128(0x0A) << 64 | 0xFF) == "000000000000000A00000000000000FF")
    }

    @Test func longStringsAndSlices() {
        let bytes = (0..<256).map { UInt8(truncatingIfNeeded: $0) }
        let spaced = HexFormat.string(bytes, spaced: true)
        #expect(spaced.count == 256 * 3 - 1)
        #expect(spaced.hasPrefix("00 01 02") && spaced.hasSuffix("FE FF"))
        #expect(HexFormat.string(bytes[254...]) == "FEFF")
    }

    /// A collection whose `count` says fewer elements than it yields: the string is cut at the
    /// room `count` promised instead of being written past it.
    @Test func aCollectionThatUndercountsIsCutNotOverrun() {
        struct Undercounting: Collection {
            let bytes: [UInt8]
            var startIndex: Int { 0 }
            var endIndex: Int { bytes.count }
            var count: Int { 2 }
            subscript(position: Int) -> UInt8 { bytes[position] }
            func index(after index: Int) -> Int { index + 1 }
        }
        let lying = Undercounting(bytes: Array(repeating: 0xAB, count: 64))
        #expect(HexFormat.string(lying) == "ABAB")
        #expect(HexFormat.string(lying, spaced: true) == "AB AB")
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
