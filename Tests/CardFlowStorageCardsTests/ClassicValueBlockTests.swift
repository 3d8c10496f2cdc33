import Testing

@testable import CardFlowStorageCards

@Suite("MIFARE Classic value blocks")
struct ClassicValueBlockTests {
    @Test("value 100 at address 5: the ACS manuals' example block")
    func publishedExample() throws {
        // ACR122S/ACR122L communication protocol manuals, "Handling the value blocks".
        let expected = bytes("64000000 9BFFFFFF 64000000 05FA05FA")
        #expect(ClassicValueBlock(value: 100, address: 5).bytes == expected)
        #expect(try ClassicValueBlock(bytes: expected) == ClassicValueBlock(value: 100, address: 5))
        #expect(try ClassicValueBlock(bytes: bytes("65000000 9AFFFFFF 65000000 05FA05FA")).value == 101)
    }

    @Test("round trip across the Int32 range and address bytes", arguments: [Int32.min, -4, -1, 0, 1, 100, Int32.max])
    func roundTrip(value: Int32) throws {
        for address in [UInt8(0), 5, 0x7F, 0xFF] {
            let block = ClassicValueBlock(value: value, address: address)
            #expect(try ClassicValueBlock(bytes: block.bytes) == block)
        }
    }

    @Test("a malformed block is refused: any copy byte changed, or a wrong length")
    func malformedRefused() {
        let good = ClassicValueBlock(value: 1234, address: 9).bytes
        for index in 0..<16 {
            var broken = good
            broken[index] ^= 0x01
            #expect(throws: StorageCardError.notAValueBlock(block: -1)) { try ClassicValueBlock(bytes: broken) }
        }
        #expect(throws: StorageCardError.notAValueBlock(block: -1)) {
            try ClassicValueBlock(bytes: Array(good.prefix(15)))
        }
        #expect(throws: StorageCardError.notAValueBlock(block: -1)) {
            try ClassicValueBlock(bytes: [UInt8](repeating: 0, count: 16))
        }
    }
}
