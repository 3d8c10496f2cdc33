import Testing

@testable import CardFlowSimulator
@testable import CardFlowSimulatorCards

/// ISO/IEC 7816-4 file access inside DESFire applications with ISO file IDs (issue 35, item 2):
/// the NFC Forum Type 4 application libfreefare's `mifare-desfire-create-ndef` makes (AID 000001,
/// ISO FID E110, DF name D2760000850101, CC file E103, NDEF file E104), read and written with
/// ISO SELECT, READ BINARY and UPDATE BINARY as a Type 4 reader does.
@Suite("DESFire card: ISO 7816-4 SELECT / READ BINARY / UPDATE BINARY in applications")
struct DESFireCardISOFileTests {
    /// CCLEN 000F, mapping 2.0, MLe 003B, MLc 0034, NDEF file E104 of 255 bytes, free read and write.
    static let capabilityContainer = h("00 0F 20 00 3B 00 34 04 06 E1 04 00 FF 00 00")

    /// The NDEF application with native commands on a factory card (free create at both levels).
    static func type4Card(message: [UInt8]) throws -> DESFireCard {
        var card = DESFireCard(seed: 21)
        card.powerOn()
        #expect(card.send(0xCA, h("01 00 00 0F 21 10 E1 D2 76 00 00 85 01 01")).status == 0x00)
        #expect(card.send(0x5A, h("01 00 00")).status == 0x00)
        // CC: read free, write, R&W and change key 0 (00 E0); NDEF: read, write, R&W free (E0 EE).
        #expect(card.send(0xCD, h("01 03 E1 00 00 E0 0F 00 00")).status == 0x00)
        #expect(card.send(0xCD, h("02 04 E1 00 E0 EE FF 00 00")).status == 0x00)
        // A third file read by key 0 only, in plain communication.
        #expect(card.send(0xCD, h("03 05 E1 00 00 00 10 00 00")).status == 0x00)
        // The CC's Write right is key 0: authenticate with it (the factory DES zero key).
        let (session, _) = try HostSession.authenticate(
            &card, command: 0x1A, keyNumber: 0, key: .des([UInt8](repeating: 0, count: 16)),
            rndA: h("01 02 03 04 05 06 07 08"))
        #expect(session != nil)
        #expect(card.send(0x3D, h("01 00 00 00 0F 00 00") + capabilityContainer).status == 0x00)
        let nlen = [UInt8(message.count >> 8), UInt8(message.count & 0xFF)]
        #expect(
            card.sendChained(0x3D, [0x02, 0, 0, 0, UInt8(message.count + 2), 0, 0] + nlen + message).status == 0x00)
        card.powerOn()
        return card
    }

    static let message = h("D1 01 0B 55 03") + Array("example.com".utf8)

    @Test("A Type 4 reader's sequence: SELECT by DF name, SELECT E103, READ BINARY, SELECT E104, READ BINARY")
    func readerSequence() throws {
        var card = try Self.type4Card(message: Self.message)
        #expect(card.process(h("00 A4 04 00 07 D2 76 00 00 85 01 01 00")) == h("90 00"))
        #expect(card.process(h("00 A4 00 0C 02 E1 03")) == h("90 00"))
        #expect(card.process(h("00 B0 00 00 02")) == h("00 0F 90 00"))
        #expect(card.process(h("00 B0 00 00 0F")) == Self.capabilityContainer + h("90 00"))
        #expect(card.process(h("00 A4 00 0C 02 E1 04")) == h("90 00"))
        #expect(card.process(h("00 B0 00 00 02")) == [0x00, UInt8(Self.message.count), 0x90, 0x00])
        #expect(card.process(h("00 B0 00 02") + [UInt8(Self.message.count)]) == Self.message + h("90 00"))
        // P1 02 (EF under the current DF) works too.
        #expect(card.process(h("00 A4 02 0C 02 E1 03")) == h("90 00"))
        #expect(card.process(h("00 B0 00 0E 01")) == h("00 90 00"))
    }

    @Test("UPDATE BINARY writes where the Write right is free; the native ReadData sees it")
    func updateBinary() throws {
        var card = try Self.type4Card(message: [])
        #expect(card.process(h("00 A4 04 00 07 D2 76 00 00 85 01 01 00")) == h("90 00"))
        #expect(card.process(h("00 A4 00 0C 02 E1 04")) == h("90 00"))
        #expect(card.process(h("00 D6 00 00 02 00 00")) == h("90 00"))
        #expect(card.process(h("00 D6 00 02") + [UInt8(Self.message.count)] + Self.message) == h("90 00"))
        #expect(card.process(h("00 D6 00 00 02 00") + [UInt8(Self.message.count)]) == h("90 00"))
        let native = card.send(0xBD, [0x02, 0, 0, 0, UInt8(Self.message.count + 2), 0, 0])
        #expect(native.status == 0x00)
        #expect(native.data == [0x00, UInt8(Self.message.count)] + Self.message)
        // The CC's Write right is key 0: refused without a session.
        #expect(card.process(h("00 A4 00 0C 02 E1 03")) == h("90 00"))
        #expect(card.process(h("00 D6 00 00 01 FF")) == h("69 82"))
    }

    @Test("Errors: unknown FID 6A82, no EF 6986, offsets 6B00, end of file 6282, key-only read 6982, past the end 6700")
    func errors() throws {
        var card = try Self.type4Card(message: Self.message)
        // At the PICC level there is no EF.
        #expect(card.process(h("00 A4 00 0C 02 E1 03")) == h("6A 82"))
        #expect(card.process(h("00 B0 00 00 02")) == h("69 86"))
        // The application by its ISO FID, then back to the MF.
        #expect(card.process(h("00 A4 00 0C 02 E1 10")) == h("90 00"))
        #expect(card.process(h("00 A4 00 0C 02 E1 99")) == h("6A 82"))
        #expect(card.process(h("00 A4 00 0C 02 E1 03")) == h("90 00"))
        #expect(card.process(h("00 B0 00 10 01")) == h("6B 00"))
        #expect(card.process(h("00 B0 00 0D 05")) == h("00 00 62 82"))
        #expect(card.process(h("00 B0 81 00 01")) == h("6A 81"))
        #expect(card.process(h("00 A4 00 00 02 E1 03")) == h("6A 86"))
        #expect(card.process(h("00 A4 00 0C 02 E1 05")) == h("90 00"))
        #expect(card.process(h("00 B0 00 00 10")) == h("69 82"))
        #expect(card.process(h("00 A4 00 0C 02 E1 04")) == h("90 00"))
        #expect(card.process(h("00 D6 00 FE 02 01 02")) == h("67 00"))
        #expect(card.process(h("00 A4 00 0C 02 3F 00")) == h("90 00"))
        #expect(card.send(0x6A).data == h("01 00 00"))
        #expect(card.process(h("00 B0 00 00 02")) == h("69 86"))
        // A native SelectApplication forgets the EF.
        #expect(card.process(h("00 A4 00 0C 02 E1 10")) == h("90 00"))
        #expect(card.process(h("00 A4 00 0C 02 E1 03")) == h("90 00"))
        #expect(card.send(0x5A, h("01 00 00")).status == 0x00)
        #expect(card.process(h("00 B0 00 00 02")) == h("69 86"))
    }

    @Test("With the key's session, a plain file whose Read right is that key can be read")
    func sessionKeyGrantsPlainFile() throws {
        var card = try Self.type4Card(message: Self.message)
        #expect(card.send(0x5A, h("01 00 00")).status == 0x00)
        let (session, _) = try HostSession.authenticate(
            &card, command: 0x1A, keyNumber: 0, key: .des([UInt8](repeating: 0, count: 16)),
            rndA: h("01 02 03 04 05 06 07 08"))
        #expect(session != nil)
        #expect(card.process(h("00 A4 02 0C 02 E1 05")) == h("90 00"))
        #expect(card.process(h("00 B0 00 00 10")) == [UInt8](repeating: 0, count: 16) + h("90 00"))
    }
}
