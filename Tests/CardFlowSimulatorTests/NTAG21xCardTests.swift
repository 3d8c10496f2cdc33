import CardFlowSimulator
import Foundation
import Testing

/// The simulated NTAG21x / Ultralight EV1 against the datasheets, through an ACR1252U's direct
/// transmit (frame in, answer + 90 00 out) and the part 3 pseudo-APDUs.
@Suite("Simulated NTAG21x and Ultralight EV1")
struct NTAG21xCardTests {
    /// A tag on an ACR1252U (072F:223B), powered.
    func tag(_ model: SimulatedType2Model = .ntag213, seed: UInt64 = 1) -> SimulatedNTAG21xCard {
        var card = SimulatedNTAG21xCard(seed: seed, model: model)
        card.placed(onReaderWithVendorID: 0x072F, productID: 0x223B)
        card.powerOn()
        return card
    }

    /// The raw answer to `frame` (hex), without the 90 00; `63 00` (silence) as nil.
    func send(_ card: inout SimulatedNTAG21xCard, _ frame: String) -> [UInt8]? {
        let body = bytes(frame)
        let answer = card.process([0xFF, 0x00, 0x00, 0x00, UInt8(body.count)] + body)
        guard answer.suffix(2) == [0x90, 0x00] else { return nil }
        return Array(answer.dropLast(2))
    }

    @Test("GET_VERSION, the ATR card name and the factory memory per datasheet")
    func identity() {
        let expected: [(SimulatedType2Model, String, UInt16)] = [
            (.ntag213, "0004040201000F03", 0x0003), (.ntag215, "0004040201001103", 0x0003),
            (.ntag216, "0004040201001303", 0x0003), (.ultralightEV1, "0004030101000B03", 0x003D),
            (.ultralightEV1Large, "0004030101000E03", 0x003D),
        ]
        for (model, version, cardName) in expected {
            var card = tag(model)
            #expect(send(&card, "60") == bytes(version))
            #expect(card.technology == .storage(standard: 0x03, cardName: cardName))
            #expect(card.memory.count == model.pageCount * 4)
        }
        var card = tag(.ntag213)
        let uid = card.uid
        let pages = send(&card, "3000")
        #expect(pages?.prefix(4) == ArraySlice(uid[0..<3] + [0x88 ^ uid[0] ^ uid[1] ^ uid[2]]))
        #expect(pages?[8] == uid[3] ^ uid[4] ^ uid[5] ^ uid[6])
        #expect(pages?.suffix(4) == ArraySlice(bytes("E1101200")))
        #expect(send(&card, "3004")?.prefix(3) == ArraySlice(bytes("0300FE")))
        // CFG0 04 00 00 FF, CFG1 00 05 00 00, PWD and PACK read as zeros.
        #expect(send(&card, "3029") == bytes("040000FF 00050000 00000000 00000000"))
        #expect(card.uid[0] == 0x04)
    }

    @Test("READ rolls over; FAST_READ; WRITE ACKs; an invalid page NAKs 0 and halts the tag")
    func pages() {
        var card = tag(.ntag213)
        #expect(send(&card, "A204 DEADBEEF") == [0x0A])
        #expect(send(&card, "3A0405")?.prefix(4) == ArraySlice(bytes("DEADBEEF")))
        #expect(send(&card, "3A0405")?.count == 8)
        let last = send(&card, "302C")
        #expect(last?.count == 16 && last?.suffix(12) == send(&card, "3000")?.prefix(12))
        #expect(send(&card, "302D") == [0x00])
        #expect(send(&card, "60") == nil) // halted: silent until powered
        card.powerOn()
        #expect(send(&card, "3A0504") == [0x00])
        card.powerOn()
        #expect(send(&card, "A200 01020304") == [0x00])
        card.powerOn()
        // COMPATIBILITY_WRITE: ACK, then 16 bytes of which 4 are kept.
        #expect(send(&card, "A006") == [0x0A])
        #expect(send(&card, "11223344 000000000000000000000000") == [0x0A])
        #expect(send(&card, "3006")?.prefix(4) == ArraySlice(bytes("11223344")))
    }

    @Test("lock bits and the CC are ORed in; locked pages NAK")
    func locks() {
        var card = tag(.ntag213)
        #expect(send(&card, "A203 00000000") == [0x0A])
        #expect(send(&card, "3003")?.prefix(4) == ArraySlice(bytes("E1101200")))
        // Static lock byte 2 bit 4 locks page 4.
        #expect(send(&card, "A202 00001000") == [0x0A])
        #expect(send(&card, "A204 01020304") == [0x00])
        card.powerOn()
        #expect(send(&card, "A205 01020304") == [0x0A])
        // NTAG213 dynamic lock bit 0 locks pages 16-17.
        #expect(send(&card, "A228 01000000") == [0x0A])
        #expect(send(&card, "A211 01020304") == [0x00])
        card.powerOn()
        #expect(send(&card, "A212 01020304") == [0x0A])
    }

    @Test("password lifecycle: PWD, PACK, AUTH0, write-only then read protection")
    func password() {
        var card = tag(.ntag215)
        #expect(send(&card, "A285 11223344") == [0x0A])
        #expect(send(&card, "A286 ABCD0000") == [0x0A])
        #expect(send(&card, "A283 04000010") == [0x0A]) // AUTH0 = 0x10
        card.powerOn()
        // Write-protected only: reads work, writes from AUTH0 on NAK.
        #expect(send(&card, "3010")?.count == 16)
        #expect(send(&card, "A210 01020304") == [0x00])
        card.powerOn()
        #expect(send(&card, "A20F 01020304") == [0x0A])
        #expect(send(&card, "1B 11223344") == bytes("ABCD"))
        #expect(send(&card, "A210 01020304") == [0x0A])
        #expect(send(&card, "3083") == bytes("04000010 00050000 00000000 00000000"))
        // PROT: reads need the password too; crossing AUTH0 rolls over to page 0.
        #expect(send(&card, "A284 80050000") == [0x0A])
        card.powerOn()
        #expect(send(&card, "3010") == [0x00])
        card.powerOn()
        let crossing = send(&card, "300E")
        #expect(crossing?.suffix(8) == send(&card, "3000")?.prefix(8))
        #expect(send(&card, "1B 00000000") == [0x00])
        card.powerOn()
        #expect(send(&card, "1B 11223344") == bytes("ABCD"))
        #expect(send(&card, "3010")?.prefix(4) == ArraySlice(bytes("01020304")))
    }

    @Test("AUTHLIM: after 2^AUTHLIM failures every PWD_AUTH NAKs 4")
    func authenticationLimit() {
        var card = tag(.ultralightEV1)
        #expect(send(&card, "A211 01050000") == [0x0A]) // AUTHLIM 1: two attempts
        for _ in 0..<2 {
            card.powerOn()
            #expect(send(&card, "1B 00000000") == [0x00])
        }
        card.powerOn()
        #expect(send(&card, "1B FFFFFFFF") == [0x04])
        #expect(card.failedAuthentications == 2)
    }

    @Test("CFGLCK freezes CFG0 and CFG1")
    func configurationLock() {
        var card = tag(.ntag216)
        #expect(send(&card, "A2E4 40050000") == [0x0A])
        #expect(send(&card, "A2E3 040000FF") == [0x00])
        card.powerOn()
        #expect(send(&card, "A2E5 01020304") == [0x0A])
    }

    @Test("the NFC counter counts the first read per power-up; READ_CNT, READ_SIG")
    func counters() {
        var card = tag(.ntag213)
        #expect(send(&card, "3902") == [0x00]) // counting disabled
        card.powerOn()
        #expect(send(&card, "A22A 10050000") == [0x0A]) // NFC_CNT_EN
        card.powerOn()
        _ = send(&card, "3004")
        _ = send(&card, "3004")
        #expect(send(&card, "3902") == bytes("010000"))
        card.powerOn()
        _ = send(&card, "3A0404")
        #expect(send(&card, "3902") == bytes("020000"))
        #expect(send(&card, "3901") == [0x00])
        card.powerOn()
        let signature = send(&card, "3C00")
        #expect(signature?.count == 32 && signature == SimulatedNTAG21xCard(seed: 1, model: .ntag213).signature)
        #expect(signature != SimulatedNTAG21xCard(seed: 2, model: .ntag213).signature)
        var ev1 = tag(.ultralightEV1)
        #expect(send(&ev1, "A501 050000 00") == [0x0A])
        #expect(send(&ev1, "3901") == bytes("050000"))
        #expect(send(&ev1, "3900") == bytes("000000"))
    }

    @Test("part 3 READ/UPDATE BINARY, and the ACS trap after PWD_AUTH")
    func part3() {
        var acs = tag(.ntag213)
        #expect(acs.process(bytes("FFD60004 04 CAFEBABE")) == bytes("9000"))
        #expect(acs.process(bytes("FFB00004 10")).prefix(4) == ArraySlice(bytes("CAFEBABE")))
        #expect(send(&acs, "1B FFFFFFFF") == bytes("0000"))
        #expect(acs.process(bytes("FFB00004 10")) == bytes("6300"))
        #expect(acs.process(bytes("FFD60004 04 01020304")) == bytes("6300"))
        #expect(send(&acs, "3004")?.prefix(4) == ArraySlice(bytes("CAFEBABE")))
        // On a uTrust 3700 F the part 3 read keeps working after PWD_AUTH.
        var identiv = SimulatedNTAG21xCard(seed: 1, model: .ntag213)
        identiv.placed(onReaderWithVendorID: 0x04E6, productID: 0x5790)
        identiv.powerOn()
        #expect(identiv.process(bytes("FFC20000 02 8100 00")) == bytes("C0030090009000"))
        #expect(identiv.process(bytes("FFC20001 07 95051BFFFFFFFF 00")) == bytes("C003009000 96020000 97020000 9000"))
        #expect(identiv.process(bytes("FFB00003 04")) == bytes("E1101200 9000"))
        #expect(identiv.process(bytes("FFB0002D 10")) == bytes("6A82"))
        #expect(identiv.process(bytes("FFD60000 04 01020304")) == bytes("6982"))
    }

    @Test("state round-trips; an edited state file is refused")
    func persistence() throws {
        var card = tag(.ntag215)
        _ = send(&card, "A204 01020304")
        let data = try JSONEncoder().encode(card)
        let loaded = try JSONDecoder().decode(SimulatedNTAG21xCard.self, from: data)
        #expect(loaded == card)
        var object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        object["memory"] = [0, 1, 2]
        let edited = try JSONSerialization.data(withJSONObject: object)
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(SimulatedNTAG21xCard.self, from: edited) }
    }

    @Test("hostile frames never trap")
    func hostile() {
        var generator = SeededGenerator(seed: 21)
        var card = tag(.ntag216)
        for _ in 0..<5000 {
            let count = Int.random(in: 1...20, using: &generator)
            let frame = (0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) }
            _ = card.process([0xFF, 0x00, 0x00, 0x00, UInt8(frame.count)] + frame)
            if Bool.random(using: &generator) { card.powerOn() }
        }
    }
}
