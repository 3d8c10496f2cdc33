import Testing

@testable import CardFlowStorageCards

/// Access bits against the NXP MF1S50yyX datasheet §8.7 tables.
@Suite("MIFARE Classic access bits")
struct ClassicAccessBitsTests {
    @Test("transport access bits FF 07 80: data 000, trailer 001")
    func transport() throws {
        let bits = try ClassicAccessBits(bytes: [0xFF, 0x07, 0x80])
        #expect(bits.dataBlocks.map(\.rawValue) == [0, 0, 0])
        #expect(bits.trailer.rawValue == 0b001)
        #expect(bits == .transport)
        #expect(ClassicAccessBits.transport.bytes == [0xFF, 0x07, 0x80])
    }

    @Test("NDEF public sector access bits 7F 07 88: data 000, trailer 011")
    func ndefPublic() throws {
        let bits = try ClassicAccessBits(bytes: [0x7F, 0x07, 0x88])
        #expect(bits.dataBlocks.map(\.rawValue) == [0, 0, 0])
        #expect(bits.trailer.rawValue == 0b011)
        #expect(ClassicAccessBits.ndefReadWrite.bytes == [0x7F, 0x07, 0x88])
        #expect(ClassicAccessBits.madSector.bytes == [0x78, 0x77, 0x88])
    }

    @Test("libfreefare's trailer block vector: FF…FF FF 07 80 42 DE AD BE EF FF FF")
    func libfreefareTrailer() throws {
        let trailer = ClassicSectorTrailer(
            keyA: .transport, accessBits: .transport, generalPurposeByte: 0x42,
            keyB: try ClassicKey([0xDE, 0xAD, 0xBE, 0xEF, 0xFF, 0xFF]))
        #expect(trailer.block == bytes("FFFFFFFFFFFF FF0780 42 DEADBEEFFFFF"))
        #expect(try ClassicSectorTrailer(block: trailer.block) == trailer)
    }

    @Test("every condition of every group round-trips, and each copy is checked")
    func roundTripAndInversion() throws {
        for raw in UInt8(0)...7 {
            let condition = try #require(ClassicAccessCondition(rawValue: raw))
            for group in 0..<4 {
                var conditions = Array(repeating: ClassicAccessCondition(c1: false, c2: false, c3: false), count: 4)
                conditions[group] = condition
                let bits = try ClassicAccessBits(dataBlocks: Array(conditions[0..<3]), trailer: conditions[3])
                let decoded = try ClassicAccessBits(bytes: bits.bytes)
                #expect(decoded == bits)
                // Flip each of the 24 bits: every single flip breaks a plain/inverted pair.
                for bit in 0..<24 {
                    var broken = bits.bytes
                    broken[bit / 8] ^= 1 << UInt8(bit % 8)
                    #expect(throws: StorageCardError.malformedAccessBits(broken)) {
                        try ClassicAccessBits(bytes: broken)
                    }
                }
            }
        }
        #expect(throws: StorageCardError.malformedAccessBits([0xFF, 0x07])) {
            try ClassicAccessBits(bytes: [0xFF, 0x07])
        }
    }

    @Test("data-block conditions: the datasheet's 8 rows")
    func dataBlockTable() {
        // (C1C2C3, read, write, increment, decrement/transfer/restore)
        let table: [(UInt8, ClassicKeys, ClassicKeys, ClassicKeys, ClassicKeys)] = [
            (0b000, .either, .either, .either, .either),
            (0b010, .either, .never, .never, .never),
            (0b100, .either, .keyB, .never, .never),
            (0b110, .either, .keyB, .keyB, .either),
            (0b001, .either, .never, .never, .either),
            (0b011, .keyB, .keyB, .never, .never),
            (0b101, .keyB, .never, .never, .never),
            (0b111, .never, .never, .never, .never),
        ]
        for (raw, read, write, increment, other) in table {
            let permissions = ClassicAccessCondition(rawValue: raw)!.dataBlockPermissions
            #expect(permissions.read == read, "read, \(raw)")
            #expect(permissions.write == write, "write, \(raw)")
            #expect(permissions.increment == increment, "increment, \(raw)")
            #expect(permissions.decrementTransferRestore == other, "decrement, \(raw)")
        }
    }

    @Test("trailer conditions: the datasheet's 8 rows, key B readability, lock-forever rows")
    func trailerTable() {
        // (C1C2C3, write key A, read access, write access, read key B, write key B)
        let table: [(UInt8, ClassicKeys, ClassicKeys, ClassicKeys, ClassicKeys, ClassicKeys)] = [
            (0b000, .keyA, .keyA, .never, .keyA, .keyA),
            (0b010, .never, .keyA, .never, .keyA, .never),
            (0b100, .keyB, .either, .never, .never, .keyB),
            (0b110, .never, .either, .never, .never, .never),
            (0b001, .keyA, .keyA, .keyA, .keyA, .keyA),
            (0b011, .keyB, .either, .keyB, .never, .keyB),
            (0b101, .never, .either, .keyB, .never, .never),
            (0b111, .never, .either, .never, .never, .never),
        ]
        for (raw, writeA, readAccess, writeAccess, readB, writeB) in table {
            let permissions = ClassicAccessCondition(rawValue: raw)!.trailerPermissions
            #expect(permissions.writeKeyA == writeA, "write A, \(raw)")
            #expect(permissions.readAccessBits == readAccess, "read access, \(raw)")
            #expect(permissions.writeAccessBits == writeAccess, "write access, \(raw)")
            #expect(permissions.readKeyB == readB, "read B, \(raw)")
            #expect(permissions.writeKeyB == writeB, "write B, \(raw)")
        }
        let readable = (UInt8(0)...7).filter { ClassicAccessCondition(rawValue: $0)!.trailerPermissions.keyBReadable }
        #expect(readable == [0b000, 0b001, 0b010])
        let frozen = (UInt8(0)...7).filter {
            !ClassicAccessCondition(rawValue: $0)!.trailerPermissions.trailerStaysWritable
        }
        #expect(frozen == [0b010, 0b110, 0b111])
    }

    @Test("a trailer that would freeze the sector is refused by the check")
    func lockingTrailerRefused() throws {
        let frozen = try ClassicAccessBits(
            dataBlocks: Array(repeating: ClassicAccessCondition(rawValue: 0)!, count: 3),
            trailer: ClassicAccessCondition(rawValue: 0b111)!)
        let trailer = ClassicSectorTrailer(
            keyA: .transport, accessBits: frozen, generalPurposeByte: 0, keyB: .transport)
        #expect(throws: StorageCardError.trailerWouldLockSector(sector: -1)) { try trailer.checkWritable() }
        try ClassicSectorTrailer.transport.checkWritable()
    }
}
