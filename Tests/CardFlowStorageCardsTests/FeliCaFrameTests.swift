import CardFlow
import Testing

@testable import CardFlowStorageCards

/// FeliCa frames byte for byte (JIS X 6319-4 command layouts; nfcpy's `tt3.py` builds the same
/// bytes) and the Type 3 attribute block.
@Suite("FeliCa frames and the Type 3 attribute block")
struct FeliCaFrameTests {
    let idm = bytes("01 2E 4C D7 12 34 56 78")

    @Test("Polling, Read and Write Without Encryption frames")
    func frames() throws {
        #expect(FeliCaFrame.polling(systemCode: 0xFFFF, requestCode: .systemCode) == bytes("06 00 FF FF 01 00"))
        #expect(FeliCaFrame.polling(systemCode: 0x12FC, requestCode: .none, timeSlots: 3) == bytes("06 00 12 FC 00 03"))
        // Two blocks of service 000B (little endian on the wire), 2-byte elements.
        #expect(
            try FeliCaFrame.readWithoutEncryption(idm: idm, service: .liteReadOnly, blocks: [0, 0x88])
                == bytes("12 06") + idm + bytes("01 0B 00 02 80 00 80 88"))
        // Block 0x0100 takes the 3-byte element form.
        #expect(
            try FeliCaFrame.readWithoutEncryption(idm: idm, service: .liteReadOnly, blocks: [0x100])
                == bytes("11 06") + idm + bytes("01 0B 00 01 00 00 01"))
        let data = [UInt8](repeating: 0xA5, count: 16)
        #expect(
            try FeliCaFrame.writeWithoutEncryption(idm: idm, service: .liteReadWrite, blocks: [3], data: data)
                == bytes("20 08") + idm + bytes("01 09 00 01 80 03") + data)
        #expect(FeliCaServiceCode.liteReadOnly.description == "000B")
        #expect(FeliCaServiceCode(rawValue: 0x1234).wireBytes == [0x34, 0x12])
    }

    @Test("Arguments that cannot make a frame are refused before anything is sent")
    func badArguments() {
        #expect(throws: StorageCardError.self) {
            try FeliCaFrame.readWithoutEncryption(idm: [1, 2, 3], service: .liteReadOnly, blocks: [0])
        }
        #expect(throws: StorageCardError.self) {
            try FeliCaFrame.readWithoutEncryption(idm: idm, service: .liteReadOnly, blocks: [])
        }
        #expect(throws: StorageCardError.self) {
            try FeliCaFrame.readWithoutEncryption(idm: idm, service: .liteReadOnly, blocks: Array(0..<16))
        }
        #expect(throws: StorageCardError.self) {
            try FeliCaFrame.readWithoutEncryption(idm: idm, service: .liteReadOnly, blocks: [0x10000])
        }
        #expect(throws: StorageCardError.self) {
            try FeliCaFrame.writeWithoutEncryption(idm: idm, service: .liteReadWrite, blocks: [1], data: [1, 2])
        }
        #expect(throws: StorageCardError.self) {
            try FeliCaFrame.writeWithoutEncryption(
                idm: idm, service: .liteReadWrite, blocks: Array(0..<15), data: [UInt8](repeating: 0, count: 240))
        }
        // More blocks than a byte counts: refused, not a trap.
        #expect(throws: StorageCardError.self) {
            try FeliCaFrame.writeWithoutEncryption(
                idm: idm, service: .liteReadWrite, blocks: Array(0..<300), data: [UInt8](repeating: 0, count: 4_800))
        }
    }

    @Test("Answers: Polling with and without request data, read data, status flags, malformed answers")
    func answers() throws {
        let pmm = bytes("00 F1 00 00 00 01 43 00")
        let polled = try FeliCaFrame.pollingAnswer(bytes("14 01") + idm + pmm + bytes("88 B4"))
        #expect(polled.idm == idm && polled.pmm == pmm && polled.systemCode == 0x88B4)
        #expect(FeliCaProduct(pmm: polled.pmm) == .liteS)
        #expect(try FeliCaFrame.pollingAnswer(bytes("12 01") + idm + pmm).systemCode == nil)

        let block = [UInt8](0..<16)
        #expect(
            try FeliCaFrame.readAnswer(bytes("1D 07") + idm + bytes("00 00 01") + block, idm: idm, blockCount: 1)
                == block)
        // Status flags: element 2 refused with A8.
        #expect(
            throws: StorageCardError.feliCaStatus(
                command: 0x06, flag1: 0x02, flag2: 0xA8, likelyCause: FeliCaFrame.likelyCause(flag2: 0xA8))
        ) { try FeliCaFrame.readAnswer(bytes("0C 07") + idm + bytes("02 A8"), idm: idm, blockCount: 2) }
        try FeliCaFrame.writeAnswer(bytes("0C 09") + idm + bytes("00 00"), idm: idm)

        let malformed: [[UInt8]] = [
            [],
            bytes("1E 07") + idm + bytes("00 00 01") + block, // LEN one too many
            bytes("1D 09") + idm + bytes("00 00 01") + block, // a write's response code
            bytes("1D 07") + [UInt8](repeating: 0x99, count: 8) + bytes("00 00 01") + block, // another card
            bytes("1D 07") + idm + bytes("00 00 02") + block, // says two blocks, carries one
            bytes("0B 07") + idm + bytes("00"), // cut in the status flags
        ]
        for answer in malformed {
            #expect(throws: StorageCardError.self) { try FeliCaFrame.readAnswer(answer, idm: idm, blockCount: 1) }
        }
        #expect(throws: StorageCardError.self) { try FeliCaFrame.pollingAnswer(bytes("0A 01") + idm) }
    }

    @Test("The attribute block: the NFC Forum layout, its checksum, and what makes it invalid")
    func attributeBlock() throws {
        // Ver 1.0, Nbr 4, Nbw 1, NmaxB 13, RWFlag 01, Ln 0: checksum 10+04+01+0D+01 = 0023.
        let formatted = bytes("10 04 01 00 0D 00 00 00 00 00 01 00 00 00 00 23")
        let attributes = try Type3AttributeBlock(bytes: formatted)
        #expect(attributes.blocksPerRead == 4 && attributes.blocksPerWrite == 1 && attributes.maximumBlocks == 13)
        #expect(attributes.writable && !attributes.writeInProgress && attributes.length == 0)
        #expect(attributes.capacity == 208)
        #expect(Type3AttributeBlock(blocksPerRead: 4, blocksPerWrite: 1, maximumBlocks: 13).encoded() == formatted)
        var writing = attributes
        writing.writeInProgress = true
        writing.length = 0x01_0203
        writing.maximumBlocks = 0x1_0000 - 1
        #expect(writing.encoded() == bytes("10 04 01 FF FF 00 00 00 00 0F 01 01 02 03 02 29"))
        #expect(try Type3AttributeBlock(bytes: writing.encoded()) == writing)

        var badChecksum = formatted
        badChecksum[15] = 0x24
        var badVersion = formatted
        badVersion[0] = 0x20
        badVersion[15] = 0x33
        var tooLong = formatted
        tooLong[13] = 0xD1 // Ln 209 > 13 blocks
        tooLong[15] = 0xF4
        for bad in [badChecksum, badVersion, tooLong, [UInt8](repeating: 0, count: 16), Array(formatted.prefix(15))] {
            #expect(throws: StorageCardError.self) { try Type3AttributeBlock(bytes: bad) }
        }
    }

    @Test("Lite memory configuration: writable blocks, NDEF flag, the NDEF area a format declares")
    func memoryConfiguration() throws {
        var configuration = try FeliCaLiteMemoryConfiguration(
            bytes: bytes("FF FF FF 00 07 00 00 00 00 00 00 00 00 00 00 00"))
        #expect(configuration.systemBlocksWritable && !configuration.ndefEnabled)
        #expect(configuration.consecutiveWritableBlocksAfterAttributeBlock == 13)
        configuration.ndefEnabled = true
        #expect(configuration.bytes[3] == 0x01)
        // S_PAD6 read-only: the area stops at S_PAD5.
        configuration.bytes[0] = 0xBF
        #expect(!configuration.isWritable(block: 6) && configuration.consecutiveWritableBlocksAfterAttributeBlock == 5)
        // S_PAD2 needs a MAC to be written.
        configuration.bytes[0] = 0xFF
        configuration.bytes[10] = 0x04
        #expect(configuration.consecutiveWritableBlocksAfterAttributeBlock == 1)
        #expect(throws: StorageCardError.self) { try FeliCaLiteMemoryConfiguration(bytes: [0xFF]) }
    }
}
