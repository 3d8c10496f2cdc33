import CardFlowNDEF
import Testing

@testable import CardFlowStorageCards

@Suite("NDEF on MIFARE Classic: the TLV area")
struct ClassicNDEFAreaTests {
    /// Blocks 4 and 5 of a Classic 1K written by NFC Tools for Android, read with an ACR1255U
    /// (stackoverflow.com/questions/37224161): NULL, NULL, NDEF TLV of 14 bytes, Terminator.
    @Test("the published 'moretto' layout decodes to a Text record")
    func publishedLayout() throws {
        let area = bytes("0000030ED1010A5402656E6D6F726574 746FFE00000000000000000000000000")
        let message = try ClassicNDEFArea.message(in: area)
        #expect(message == bytes("D1010A5402656E6D6F726574746F"))
        let decoded = try NDEFMessage(decoding: message)
        let text = try TextRecord(try #require(decoded.records.first), mode: .strict)
        #expect(text.text == "moretto" && text.language == "en")
    }

    @Test("TLV encoding: short and 3-byte lengths, terminator")
    func encoding() throws {
        #expect(ClassicNDEFArea.tlvBytes(for: [0xD0, 0x00, 0x00]) == [0x03, 0x03, 0xD0, 0x00, 0x00, 0xFE])
        let long = [UInt8](repeating: 0x41, count: 300)
        let tlv = ClassicNDEFArea.tlvBytes(for: long)
        #expect(tlv.prefix(4) == [0x03, 0xFF, 0x01, 0x2C] && tlv.last == 0xFE && tlv.count == 305)
        #expect(try ClassicNDEFArea.message(in: tlv) == long)
        #expect(ClassicNDEFArea.requiredBytes(forMessageLength: 3) == 6)
    }

    @Test("malformed areas are typed errors, never a crash")
    func malformed() {
        #expect(throws: StorageCardError.self) { try ClassicNDEFArea.message(in: [0x03]) }
        #expect(throws: StorageCardError.self) { try ClassicNDEFArea.message(in: [0x03, 0x10, 0x00]) }
        #expect(throws: StorageCardError.self) { try ClassicNDEFArea.message(in: [0x03, 0xFF, 0x01]) }
        #expect(throws: StorageCardError.self) { try ClassicNDEFArea.message(in: [0xFE, 0x03, 0x00]) }
        #expect(throws: StorageCardError.self) { try ClassicNDEFArea.message(in: []) }
        #expect(throws: StorageCardError.self) { try ClassicNDEFArea.message(in: [0x01, 0x05, 0x00]) }
    }
}
