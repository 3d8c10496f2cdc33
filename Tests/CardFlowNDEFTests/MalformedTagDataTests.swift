import Testing

@testable import CardFlowNDEF

@Suite("Malformed tag structures")
struct MalformedTagDataTests {
    @Test func type4CapabilityContainerErrors() {
        let good: [UInt8] = [0x00, 0x0F, 0x20, 0x00, 0xFF, 0x00, 0xF6, 0x04, 0x06, 0xE1, 0x04, 0x04, 0x00, 0x00, 0x00]
        #expect((try? Type4CapabilityContainer(bytes: good))?.maximumNDEFFileSize == 0x400)
        var noTLV = good; noTLV[7] = 0x05
        #expect(throws: NDEFTagError.self) { try Type4CapabilityContainer(bytes: noTLV) }
        var version = good; version[2] = 0x30
        #expect(throws: NDEFTagError.self) { try Type4CapabilityContainer(bytes: version) }
        var tinyMLe = good; tinyMLe[4] = 0x01
        #expect(throws: NDEFTagError.self) { try Type4CapabilityContainer(bytes: tinyMLe) }
        #expect(throws: NDEFTagError.self) { try Type4CapabilityContainer(bytes: Array(good.prefix(10))) }
    }

    @Test func type2TLVErrors() throws {
        // Lock control TLV, then the NDEF TLV: found after skipping.
        let area: [UInt8] = [0x01, 0x03, 0xA0, 0x10, 0x44, 0x03, 0x02, 0xD0, 0x00, 0xFE]
        let found = try #require(try Type2Tag.locateNDEF(in: area))
        #expect(found.tlvOffset == 5 && found.valueOffset == 7 && found.length == 2)
        // Terminator before any NDEF TLV: none.
        #expect(try Type2Tag.locateNDEF(in: [0x00, 0xFE, 0x03, 0x00]) == nil)
        // A length byte missing, or a 3-byte length cut short: typed errors, no crash.
        #expect(throws: NDEFTagError.self) { try Type2Tag.locateNDEF(in: [0x00, 0x03]) }
        #expect(throws: NDEFTagError.self) { try Type2Tag.locateNDEF(in: [0x03, 0xFF, 0x01]) }
    }
}
