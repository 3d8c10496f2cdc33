import CardFlowSimulator
import Testing

@Suite("PC/SC part 3 ATR synthesis")
struct ContactlessATRTests {
    @Test("DESFire ATS 06 75 77 81 02 80 gives 3B 81 80 01 80 80")
    func desfire() {
        #expect(ContactlessATR.historicalBytes(fromATS: bytes("06 75 77 81 02 80")) == [0x80])
        #expect(ContactlessATR.atr(for: .isoDepTypeA(ats: bytes("06 75 77 81 02 80"))) == bytes("3B 81 80 01 80 80"))
        #expect(ContactlessATR.atr(for: .desfireTypeA) == bytes("3B 81 80 01 80 80"))
    }

    @Test("Type A without historical bytes gives 3B 80 80 01 01")
    func noHistoricalBytes() {
        #expect(ContactlessATR.typeA(historicalBytes: []) == bytes("3B 80 80 01 01"))
        #expect(ContactlessATR.atr(for: .isoDepTypeA(ats: [0x01])) == bytes("3B 80 80 01 01"))
        #expect(ContactlessATR.atr(for: .isoDepTypeA(ats: bytes("05 78 80 70 02"))) == bytes("3B 80 80 01 01"))
    }

    @Test("ATS parsing honours T0 interface-byte flags, TL and malformed input")
    func atsParsing() {
        // T0 = 0x78: TA1, TB1, TC1 present; HB = 80 73 C8 21 10 (JCOP-like).
        #expect(
            ContactlessATR.historicalBytes(fromATS: bytes("0A 78 77 91 02 80 73 C8 21 10 AA"))
                == bytes("80 73 C8 21 10"))
        // T0 = 0x05 (no interface bytes); trailing CRC bytes beyond TL are ignored.
        #expect(ContactlessATR.historicalBytes(fromATS: bytes("04 05 41 42 CC DD")) == bytes("41 42"))
        #expect(ContactlessATR.historicalBytes(fromATS: []) == nil)
        #expect(ContactlessATR.historicalBytes(fromATS: [0x00]) == nil)
        #expect(ContactlessATR.historicalBytes(fromATS: bytes("08 75 77")) == nil) // TL longer than data
        #expect(ContactlessATR.historicalBytes(fromATS: bytes("03 70 77")) == nil) // T0 announces 3 bytes
    }

    @Test("Type A with several historical bytes: length nibble and TCK")
    func typeAWithBytes() {
        let atr = ContactlessATR.typeA(historicalBytes: bytes("80 73 C8 21 10"))
        #expect(atr.prefix(4) == [0x3B, 0x85, 0x80, 0x01])
        #expect(atr.dropFirst().reduce(0, ^) == 0) // TCK makes the XOR of T0…TCK zero
        #expect(ContactlessATR.typeA(historicalBytes: [UInt8](repeating: 1, count: 20)).count == 4 + 15 + 1)
    }

    @Test("Storage cards: Classic 1K/4K, Ultralight, Ultralight C, ICODE SLI, Tag-it, FeliCa, iCLASS")
    func storageCards() {
        let prefix = "3B 8F 80 01 80 4F 0C A0 00 00 03 06"
        #expect(ContactlessATR.atr(for: .mifareClassic1K) == bytes(prefix + "03 00 01 00 00 00 00 6A"))
        #expect(ContactlessATR.atr(for: .mifareClassic4K) == bytes(prefix + "03 00 02 00 00 00 00 69"))
        #expect(ContactlessATR.atr(for: .mifareUltralight) == bytes(prefix + "03 00 03 00 00 00 00 68"))
        #expect(
            ContactlessATR.storageCard(standard: 0x03, cardName: 0x003A) == bytes(prefix + "03 00 3A 00 00 00 00 51"))
        #expect(ContactlessATR.atr(for: .icodeSLI) == bytes(prefix + "0B 00 14 00 00 00 00 77"))
        #expect(
            ContactlessATR.storageCard(standard: 0x0B, cardName: 0x0012) == bytes(prefix + "0B 00 12 00 00 00 00 71"))
        #expect(ContactlessATR.atr(for: .felica) == bytes(prefix + "11 00 3B 00 00 00 00 42"))
        #expect(
            ContactlessATR.storageCard(standard: 0x0A, cardName: 0x001C) == bytes(prefix + "0A 00 1C 00 00 00 00 7E"))
    }

    @Test("Type B: 3B 88 80 01 + ATQB application data + protocol info + MBLI nibble + TCK")
    func typeB() {
        let atr = ContactlessATR.atr(
            for: .isoDepTypeB(
                applicationData: bytes("00 00 00 00"), protocolInfo: bytes("77 81 71"), mbli: 0x0))
        #expect(
            atr == bytes("3B 88 80 01 00 00 00 00 77 81 71 00") + [
                bytes("88 80 01 00 00 00 00 77 81 71 00").reduce(0, ^)
            ])
        let withMBLI = ContactlessATR.typeB(
            applicationData: bytes("11 22 33 44"), protocolInfo: bytes("81 81 85"), mbli: 3)
        #expect(withMBLI.count == 13)
        #expect(withMBLI[11] == 0x30)
        #expect(withMBLI.dropFirst().reduce(0, ^) == 0)
    }

    @Test("Contact cards keep their ATR")
    func contact() {
        #expect(ContactlessATR.atr(for: .contact(atr: bytes("3B 02 14 50"))) == bytes("3B 02 14 50"))
    }
}
