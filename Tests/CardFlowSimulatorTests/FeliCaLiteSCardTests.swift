import CardFlowSimulator
import Foundation
import Testing

/// The simulated FeliCa Lite-S against the Lite-S user's manual and the FeliCa card manual's
/// command formats, through an ACR1252U's direct transmit (frame in, answer + 90 00 out).
@Suite("Simulated FeliCa Lite-S")
struct FeliCaLiteSCardTests {
    /// A card on an ACR1252U (072F:223B), powered.
    func card(ndef: Bool = false, seed: UInt64 = 3) -> SimulatedFeliCaLiteSCard {
        var card = SimulatedFeliCaLiteSCard(seed: seed, ndefFormatted: ndef)
        card.placed(onReaderWithVendorID: 0x072F, productID: 0x223B)
        card.powerOn()
        return card
    }

    /// The raw answer to `frame` (hex, its LEN byte computed here), without the 90 00; nil when
    /// the card stays silent (`63 00`).
    func send(_ card: inout SimulatedFeliCaLiteSCard, _ body: [UInt8]) -> [UInt8]? {
        let frame = [UInt8(body.count + 1)] + body
        let answer = card.process([0xFF, 0x00, 0x00, 0x00, UInt8(frame.count)] + frame)
        guard answer.suffix(2) == [0x90, 0x00] else { return nil }
        return Array(answer.dropLast(2))
    }

    func read(_ card: inout SimulatedFeliCaLiteSCard, service: [UInt8] = [0x0B, 0x00], _ elements: [UInt8])
        -> [UInt8]?
    {
        // Two-byte elements only: one per pair of bytes.
        send(&card, [0x06] + card.idm + [0x01] + service + [UInt8(elements.count / 2)] + elements)
    }

    func write(_ card: inout SimulatedFeliCaLiteSCard, block: UInt8, _ data: [UInt8], service: [UInt8] = [0x09, 0x00])
        -> [UInt8]?
    {
        send(&card, [0x08] + card.idm + [0x01] + service + [0x01, 0x80, block] + data)
    }

    /// The two status flags of a read or write answer.
    func flags(_ answer: [UInt8]?) -> [UInt8]? { answer.map { Array($0[10..<12]) } }

    @Test("Polling: 88B4, wildcards, 12FC only with NDEF on, request codes 00/01/02, silence otherwise")
    func polling() {
        var plain = card()
        let head = [0x01] + plain.idm + SimulatedFeliCaLiteSCard.pmm
        #expect(send(&plain, [0x00, 0xFF, 0xFF, 0x00, 0x00]) == [0x12] + head)
        #expect(send(&plain, [0x00, 0xFF, 0xFF, 0x01, 0x00]) == [0x14] + head + [0x88, 0xB4])
        #expect(send(&plain, [0x00, 0x88, 0xFF, 0x01, 0x00]) == [0x14] + head + [0x88, 0xB4])
        #expect(send(&plain, [0x00, 0x88, 0xB4, 0x02, 0x00]) == [0x14] + head + [0x00, 0x83])
        #expect(send(&plain, [0x00, 0x12, 0xFC, 0x01, 0x00]) == nil, "no NDEF system before the format")
        #expect(send(&plain, [0x00, 0x00, 0x03, 0x01, 0x00]) == nil, "another system (a transit card)")
        #expect(plain.technology == .felica)
        #expect(plain.uid == plain.idm && plain.idm.prefix(2) == [0x01, 0x2E])

        var formatted = card(ndef: true)
        #expect(send(&formatted, [0x00, 0x12, 0xFC, 0x01, 0x00])?.suffix(2) == [0x12, 0xFC])
        #expect(send(&formatted, [0x00, 0xFF, 0xFF, 0x01, 0x00])?.suffix(2) == [0x12, 0xFC])
        #expect(send(&formatted, [0x00, 0x88, 0xB4, 0x01, 0x00])?.suffix(2) == [0x88, 0xB4])
    }

    @Test("Read Without Encryption: up to four blocks, 2- and 3-byte elements, D_ID, SYS_C, the status flags")
    func reads() {
        var card = card(ndef: true)
        let four = read(&card, [0x80, 0x00, 0x80, 0x01, 0x80, 0x0E, 0x80, 0x83])
        #expect(four?.count == 13 + 64)
        #expect(four.map { Array($0[0..<2]) } == [13 + 64, 0x07])
        #expect(four.map { Array($0[10..<13]) } == [0x00, 0x00, 0x04])
        // Block 0: the attribute block of a formatted card (NmaxB 13, RWFlag 01, checksum 00 23).
        #expect(four.map { Array($0[13..<29]) } == bytes("10040100 0D000000 00000100 00000023"))
        // D_ID (83): IDm and PMm.
        #expect(four.map { Array($0[61..<77]) } == card.idm + SimulatedFeliCaLiteSCard.pmm)
        // The 3-byte element form names block 0085 (SYS_C: 88 B4).
        let system = send(&card, [0x06] + card.idm + [0x01, 0x0B, 0x00, 0x01, 0x00, 0x85, 0x00])
        #expect(system.map { Array($0[13..<15]) } == [0x88, 0xB4])
        // Both services read; five blocks or an unknown service are refused for the whole command.
        #expect(flags(read(&card, service: [0x09, 0x00], [0x80, 0x01])) == [0x00, 0x00])
        #expect(flags(read(&card, [0x80, 0, 0x80, 1, 0x80, 2, 0x80, 3, 0x80, 4])) == [0xFF, 0xA2])
        #expect(flags(read(&card, service: [0x0F, 0x10], [0x80, 0x01])) == [0xFF, 0xA1])
        // The second element names a block the card does not have (MAC, 81): its bit, A8.
        #expect(flags(read(&card, [0x80, 0x00, 0x80, 0x81])) == [0x02, 0xA8])
        // A service order other than 0, an access mode other than 000.
        #expect(flags(read(&card, [0x81, 0x00])) == [0x01, 0xA3])
        #expect(flags(read(&card, [0x90, 0x00])) == [0x01, 0xA7])
        // A frame for another IDm, or whose LEN lies, gets no answer.
        #expect(send(&card, [0x06] + [UInt8](repeating: 0x11, count: 8) + [0x01, 0x0B, 0x00, 0x01, 0x80, 0x00]) == nil)
        let lying = [0x20, 0x06] + card.idm + [0x01, 0x0B, 0x00, 0x01, 0x80, 0x00]
        #expect(card.process([0xFF, 0x00, 0x00, 0x00, UInt8(lying.count)] + lying) == [0x63, 0x00])
    }

    @Test("Write Without Encryption: one block through 0009, WCNT counts, MC decides what is writable")
    func writes() {
        var card = card()
        let data = [UInt8](0..<16)
        #expect(flags(write(&card, block: 0x05, data)) == [0x00, 0x00])
        #expect(read(&card, [0x80, 0x05])?.suffix(16) == ArraySlice(data))
        #expect(read(&card, [0x80, 0x90])?[13] == 1, "WCNT counted the write")
        // Through the read-only service, two blocks at once, a block the card lacks.
        #expect(flags(write(&card, block: 0x05, data, service: [0x0B, 0x00])) == [0xFF, 0xA6])
        let two = send(&card, [0x08] + card.idm + [0x01, 0x09, 0x00, 0x02, 0x80, 0x01, 0x80, 0x02] + data + data)
        #expect(flags(two) == [0xFF, 0xA2])
        #expect(flags(write(&card, block: 0x83, data)) == [0x01, 0xA8], "D_ID is read-only")

        // MC: S_PAD5 read-only (bit 5 cleared), S_PAD6 readable only after authentication.
        var configuration = SimulatedFeliCaLiteSCard.factoryMemoryConfiguration
        configuration[0] = 0xDF
        configuration[6] = 0x40
        #expect(flags(write(&card, block: 0x88, configuration)) == [0x00, 0x00])
        #expect(flags(write(&card, block: 0x05, data)) == [0x01, 0xA8])
        #expect(flags(read(&card, [0x80, 0x06])) == [0x01, 0xB1])
        // A cleared writable bit stays cleared; freezing the system blocks is for good.
        configuration[0] = 0xFF
        configuration[2] = 0x00
        #expect(flags(write(&card, block: 0x88, configuration)) == [0x00, 0x00])
        #expect(card.memoryConfiguration[0] == 0xDF)
        #expect(flags(write(&card, block: 0x88, SimulatedFeliCaLiteSCard.factoryMemoryConfiguration)) == [0x01, 0xA8])
        #expect(flags(write(&card, block: 0x82, data)) == [0x01, 0xA8], "ID frozen with the system blocks")
    }

    @Test("The state round-trips; a state file with blocks of the wrong size is refused")
    func persistence() throws {
        var card = card()
        _ = write(&card, block: 0x02, [UInt8](repeating: 0xAB, count: 16))
        let data = try JSONEncoder().encode(card)
        var decoded = try JSONDecoder().decode(SimulatedFeliCaLiteSCard.self, from: data)
        #expect(decoded == card)
        decoded.placed(onReaderWithVendorID: 0x072F, productID: 0x223B)
        #expect(read(&decoded, [0x80, 0x02])?.suffix(16) == ArraySlice([UInt8](repeating: 0xAB, count: 16)))
        var object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        object["memoryConfiguration"] = [0xFF]
        let broken = try JSONSerialization.data(withJSONObject: object)
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(SimulatedFeliCaLiteSCard.self, from: broken) }
    }

    @Test("Hostile frames never trap: every length up to 40 of seeded bytes, and truncated commands")
    func hostileFrames() {
        var card = card(ndef: true)
        var random = SeededRandom(seed: 0x9E37_79B9_7F4A_7C15)
        for length in 0...40 {
            for _ in 0..<50 {
                var frame = (0..<length).map { _ in UInt8.random(in: 0...255, using: &random) }
                if length > 1 { frame[0] = UInt8(length) }
                if length > 10, Bool.random(using: &random) { frame.replaceSubrange(2..<10, with: card.idm) }
                if length > 2, Bool.random(using: &random) { frame[1] = [0x00, 0x06, 0x08].randomElement()! }
                let apdu: [UInt8] =
                    length == 0 ? [0xFF, 0x00, 0x00, 0x00] : [0xFF, 0x00, 0x00, 0x00, UInt8(length)] + frame
                #expect(card.process(apdu).count >= 2)
            }
        }
    }
}
