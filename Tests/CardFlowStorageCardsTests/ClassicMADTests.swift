import Testing

@testable import CardFlowStorageCards

/// MAD CRC-8 (AN10787: polynomial 1D, preset C7) against libfreefare's test_mad.c vectors.
@Suite("MIFARE Application Directory")
struct ClassicMADTests {
    @Test("the AN10787 documentation example gives CRC 89")
    func documentationExample() {
        let body = bytes("01 0108 0108 0108 0000 0000 0000 0400 0310 0310 0210 0210 0000 0000 0000 1130")
        #expect(body.count == 31)
        #expect(ClassicMAD.crc(body) == 0x89)
    }

    @Test("libfreefare's real dumps: five and six NDEF sectors give C4 and AB")
    func realDumps() {
        let five = [0x01] + Array(repeating: [0x03, 0xE1], count: 5).flatMap { $0 } + [UInt8](repeating: 0, count: 20)
        let six = [0x01] + Array(repeating: [0x03, 0xE1], count: 6).flatMap { $0 } + [UInt8](repeating: 0, count: 18)
        #expect(ClassicMAD.crc(five) == 0xC4)
        #expect(ClassicMAD.crc(six) == 0xAB)
    }

    @Test("crc(message + crc(message)) is 0")
    func integrity() {
        let message: [UInt8] = [0x42]
        #expect(ClassicMAD.crc(message + [ClassicMAD.crc(message)]) == 0)
    }

    @Test("a 1K NDEF MAD: 14 01 then fifteen 03 E1, decoded and encoded")
    func ndefMAD1() throws {
        let sector0 = bytes("14 01") + Array(repeating: [0x03, 0xE1], count: 15).flatMap { $0 }
        let mad = try ClassicMAD(sector0: sector0)
        #expect(mad.version == 1 && mad.infoByte == 0x01)
        #expect(mad.sectors(for: .ndef) == Array(1...15))
        var built = try ClassicMAD(version: 1)
        built.infoByte = 0x01
        for sector in 1...15 { try built.setApplication(.ndef, ofSector: sector) }
        #expect(built.sector0Bytes == sector0)
        #expect(built.generalPurposeByte == 0xC1)
        var wrongCRC = sector0
        wrongCRC[0] = 0x15
        #expect(throws: StorageCardError.self) { try ClassicMAD(sector0: wrongCRC) }
        #expect(throws: StorageCardError.self) { try ClassicMAD(sector0: Array(sector0.prefix(31))) }
    }

    @Test("MAD2 covers sectors 1–15 and 17–39, sector 16 skipped")
    func mad2() throws {
        var mad = try ClassicMAD(version: 2)
        try mad.setApplication(.ndef, ofSector: 17)
        try mad.setApplication(.ndef, ofSector: 39)
        try mad.setApplication(.cardHolderInformation, ofSector: 1)
        #expect(throws: StorageCardError.self) { try mad.setApplication(.ndef, ofSector: 16) }
        #expect(throws: StorageCardError.self) { try mad.setApplication(.ndef, ofSector: 40) }
        let sector16 = try #require(mad.sector16Bytes)
        #expect(sector16.count == 48 && sector16[2...3] == [0x03, 0xE1])
        let decoded = try ClassicMAD(sector0: mad.sector0Bytes, sector16: sector16)
        #expect(decoded == mad)
        #expect(decoded.sectors(for: .ndef) == [17, 39])
        #expect(decoded.generalPurposeByte == 0xC2)
    }
}
