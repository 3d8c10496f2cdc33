import CardFlowSimulator
import Testing

@Suite("PC/SC part 3 reader pseudo-APDUs")
struct PCSCPart3ResponderTests {
    let responder = PCSCPart3Responder()
    let uid = bytes("04 A1 B2 C3 D4 E5 F6")

    private func answer(_ apdu: String, technology: ContactlessTechnology = .desfireTypeA) -> [UInt8]? {
        responder.response(to: bytes(apdu), uid: uid, technology: technology)
    }

    @Test("FF CA 00 00 00 returns the full UID")
    func uidFull() {
        #expect(answer("FF CA 00 00 00") == uid + [0x90, 0x00])
        #expect(answer("FF CA 00 00 07") == uid + [0x90, 0x00])
        #expect(answer("FF CA 00 00 00", technology: .icodeSLI) == uid + [0x90, 0x00])
    }

    @Test("Le shorter than the UID gives 6C with the UID length")
    func uidShortLe() {
        #expect(answer("FF CA 00 00 04") == [0x6C, 0x07])
    }

    @Test("Le longer than the UID pads with zeros and gives 62 82")
    func uidLongLe() {
        #expect(answer("FF CA 00 00 0A") == uid + [0, 0, 0] + [0x62, 0x82])
    }

    @Test("FF CA 01 00 00: historical bytes for ISO-DEP type A, 6A 81 otherwise")
    func historicalBytes() {
        #expect(answer("FF CA 01 00 00") == [0x80, 0x90, 0x00])
        #expect(answer("FF CA 01 00 00", technology: .mifareClassic1K) == [0x6A, 0x81])
        #expect(
            answer(
                "FF CA 01 00 00",
                technology: .isoDepTypeB(
                    applicationData: [0, 0, 0, 0], protocolInfo: [0, 0, 0], mbli: 0)) == [0x6A, 0x81])
    }

    @Test("Unknown FF instruction 6D 00, wrong P1/P2 6A 86, wrong length 67 00")
    func errors() {
        #expect(answer("FF B0 00 04 10") == [0x6D, 0x00])
        #expect(answer("FF CA 00 01 00") == [0x6A, 0x86])
        #expect(answer("FF CA 05 00 00") == [0x6A, 0x86])
        #expect(answer("FF CA 00 00") == [0x67, 0x00])
        #expect(answer("FF CA 00 00 01 00 00") == [0x67, 0x00])
        #expect(answer("FF") == [0x67, 0x00])
    }

    @Test("Non-FF commands and contact cards go to the card; pass-through instructions too")
    func passThrough() {
        #expect(answer("00 A4 04 00 07 A0 00 00 02 47 10 01 00") == nil)
        #expect(answer("FF CA 00 00 00", technology: .contact(atr: bytes("3B 00"))) == nil)
        let classic = PCSCPart3Responder(passThroughInstructions: [0xB0, 0xD6])
        #expect(classic.response(to: bytes("FF B0 00 04 10"), uid: uid, technology: .mifareClassic1K) == nil)
        #expect(
            classic.response(to: bytes("FF CA 00 00 00"), uid: uid, technology: .mifareClassic1K) == uid + [0x90, 0x00])
    }

    @Test("Works from a card model")
    func fromCard() {
        let card = ISO7816Card(seed: 42)
        #expect(responder.response(to: bytes("FF CA 00 00 00"), card: card) == card.uid + [0x90, 0x00])
    }
}
