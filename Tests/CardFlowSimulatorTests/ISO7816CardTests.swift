import CardFlowSimulator
import Testing

@Suite("ISO 7816-4 card model")
struct ISO7816CardTests {
    static let aid = "A0 00 00 02 47 10 01"
    static let ef0102 = (0..<1000).map { UInt8($0 % 251) }

    private func makeCard(_ options: ISO7816CardOptions = ISO7816CardOptions()) -> ISO7816Card {
        var card = ISO7816Card(seed: 7, options: options)
        card.powerOn()
        return card
    }

    /// Sends an APDU given as hex and returns the response.
    private func send(_ card: inout ISO7816Card, _ apdu: String) -> [UInt8] {
        card.process(bytes(apdu))
    }

    private func sw(_ response: [UInt8]) -> UInt16 {
        response.count >= 2 ? UInt16(response[response.count - 2]) << 8 | UInt16(response[response.count - 1]) : 0
    }

    private func selectApplicationFile(_ card: inout ISO7816Card, _ fid: String) {
        #expect(send(&card, "00 A4 04 0C 07 \(Self.aid)") == [0x90, 0x00])
        #expect(send(&card, "00 A4 02 0C 02 \(fid)") == [0x90, 0x00])
    }

    // MARK: - Identity

    @Test("UID is 7 bytes, deterministic from the seed; default technology is DESFire-like type A")
    func identity() {
        let a = ISO7816Card(seed: 1)
        let b = ISO7816Card(seed: 1)
        let c = ISO7816Card(seed: 2)
        #expect(a.uid.count == 7)
        #expect(a.uid.first == 0x04)
        #expect(a.uid == b.uid)
        #expect(a.uid != c.uid)
        #expect(a.kind == "iso7816")
        #expect(ContactlessATR.atr(for: a.technology) == bytes("3B 81 80 01 80 80"))
    }

    // MARK: - SELECT

    @Test("SELECT by AID: no response data with P2=0C, FCI with P2=00, FCP with P2=04")
    func selectByAID() {
        var card = makeCard()
        #expect(send(&card, "00 A4 04 0C 07 \(Self.aid)") == [0x90, 0x00])
        #expect(send(&card, "00 A4 04 00 07 \(Self.aid) 00") == bytes("6F 0D 83 02 70 01 84 07 \(Self.aid) 90 00"))
        #expect(send(&card, "00 A4 04 04 07 \(Self.aid) 00") == bytes("62 0D 83 02 70 01 84 07 \(Self.aid) 90 00"))
        // Case 3 SELECT asking for the FCI still gets it.
        #expect(send(&card, "00 A4 04 00 07 \(Self.aid)") == bytes("6F 0D 83 02 70 01 84 07 \(Self.aid) 90 00"))
        #expect(send(&card, "00 A4 04 0C 07 A0 00 00 02 47 99 99") == [0x6A, 0x82])
        #expect(send(&card, "00 A4 04 0C 11 A0 00 00 02 47 10 01 00 00 00 00 00 00 00 00 00 00") == [0x67, 0x00])
    }

    @Test("SELECT by partial AID, first then next occurrence")
    func selectPartialAID() {
        var card = makeCard()
        #expect(send(&card, "00 A4 04 00 05 A0 00 00 02 47 00") == bytes("6F 0D 83 02 70 01 84 07 \(Self.aid) 90 00"))
        #expect(
            send(&card, "00 A4 04 02 05 A0 00 00 02 47 00")
                == bytes("6F 0D 83 02 70 02 84 07 A0 00 00 02 47 20 01 90 00"))
        #expect(send(&card, "00 A4 04 02 05 A0 00 00 02 47 00") == [0x6A, 0x82])
        // The failed "next" kept the selection: the second application is still current.
        #expect(send(&card, "00 A4 02 0C 02 01 01") == [0x90, 0x00])
        #expect(send(&card, "00 B0 00 00 08") == [UInt8](repeating: 0xAA, count: 8) + [0x90, 0x00])
        // Last / previous occurrence are not supported.
        #expect(send(&card, "00 A4 04 01 05 A0 00 00 02 47 00") == [0x6A, 0x86])
    }

    @Test("SELECT by file identifier: MF, child DF, EF, parent, path; EF FCI")
    func selectByFID() {
        var card = makeCard()
        #expect(send(&card, "00 A4 00 0C 02 70 01") == [0x90, 0x00])
        #expect(send(&card, "00 A4 02 00 02 01 02 00") == bytes("6F 0B 82 01 01 83 02 01 02 80 02 03 E8 90 00"))
        #expect(send(&card, "00 A4 00 0C 02 01 01") == [0x90, 0x00])
        #expect(send(&card, "00 B0 00 00 04") == bytes("00 01 02 03 90 00"))
        #expect(send(&card, "00 A4 03 0C") == [0x90, 0x00]) // back to the MF
        #expect(send(&card, "00 A4 03 0C") == [0x6A, 0x82]) // the MF has no parent
        #expect(send(&card, "00 A4 01 0C 02 70 02") == [0x90, 0x00])
        #expect(send(&card, "00 A4 00 0C 02 70 01") == [0x90, 0x00]) // sibling DF
        #expect(send(&card, "00 A4 00 00 02 3F 00 00") == bytes("6F 04 83 02 3F 00 90 00"))
        #expect(send(&card, "00 A4 08 0C 04 70 01 01 03") == [0x90, 0x00])
        #expect(send(&card, "00 B0 00 00 10") == Array("CardFlow RO file".utf8) + [0x90, 0x00])
        #expect(send(&card, "00 A4 09 0C 02 01 01") == [0x90, 0x00]) // path from the current DF 7001
        #expect(send(&card, "00 B0 00 1F 01") == bytes("1F 90 00"))
    }

    @Test("SELECT errors: not found keeps selection, wrong lengths, wrong P1/P2")
    func selectErrors() {
        var card = makeCard()
        selectApplicationFile(&card, "01 01")
        #expect(send(&card, "00 A4 02 0C 02 0F 0F") == [0x6A, 0x82])
        #expect(send(&card, "00 B0 00 00 02") == bytes("00 01 90 00")) // EF 0101 still current
        #expect(send(&card, "00 A4 02 0C 01 01") == [0x67, 0x00])
        #expect(send(&card, "00 A4 02 0C 03 01 01 01") == [0x67, 0x00])
        #expect(send(&card, "00 A4 03 0C 02 01 01") == [0x67, 0x00])
        #expect(send(&card, "00 A4 05 0C 02 01 01") == [0x6A, 0x86])
        #expect(send(&card, "00 A4 02 08 02 01 01") == [0x6A, 0x86])
        #expect(send(&card, "00 A4 02 1C 02 01 01") == [0x6A, 0x86])
    }

    // MARK: - READ BINARY

    @Test("READ BINARY: exact bytes, offsets, Le 00 = 256, end of file 62 82, offset past end 6B 00")
    func readBinary() {
        var card = makeCard()
        selectApplicationFile(&card, "01 02")
        #expect(send(&card, "00 B0 00 00 10") == Array(Self.ef0102[0..<16]) + [0x90, 0x00])
        #expect(send(&card, "00 B0 01 00 10") == Array(Self.ef0102[256..<272]) + [0x90, 0x00])
        #expect(send(&card, "00 B0 00 00 00") == Array(Self.ef0102[0..<256]) + [0x90, 0x00])
        #expect(send(&card, "00 B0 03 E0 10") == Array(Self.ef0102[992..<1000]) + [0x62, 0x82])
        #expect(send(&card, "00 B0 03 E7 00") == [Self.ef0102[999], 0x62, 0x82])
        #expect(send(&card, "00 B0 03 E8 01") == [0x6B, 0x00])
        #expect(send(&card, "00 B0 7F FF 01") == [0x6B, 0x00])
    }

    @Test("READ BINARY with a short EF identifier selects the EF; errors 6986, 6A82, 6A86, 6700")
    func readBinarySFI() {
        var card = makeCard()
        #expect(send(&card, "00 A4 04 0C 07 \(Self.aid)") == [0x90, 0x00])
        #expect(send(&card, "00 B0 00 00 04") == [0x69, 0x86]) // no current EF
        #expect(send(&card, "00 B0 81 04 04") == bytes("04 05 06 07 90 00"))
        #expect(send(&card, "00 B0 00 1E 02") == bytes("1E 1F 90 00")) // EF 0101 became current
        #expect(send(&card, "00 B0 83 00 08") == Array("CardFlow".utf8) + [0x90, 0x00])
        #expect(send(&card, "00 B0 85 00 04") == [0x6A, 0x82])
        #expect(send(&card, "00 B0 A1 00 04") == [0x6A, 0x86])
        #expect(send(&card, "00 B0 80 00 04") == [0x6A, 0x86])
        #expect(send(&card, "00 B0 00 00") == [0x67, 0x00]) // case 1
        #expect(send(&card, "00 B0 00 00 01 AA") == [0x67, 0x00]) // case 3
        // Selecting a DF clears the current EF.
        #expect(send(&card, "00 A4 04 0C 07 \(Self.aid)") == [0x90, 0x00])
        #expect(send(&card, "00 B0 00 00 04") == [0x69, 0x86])
    }

    // MARK: - UPDATE BINARY

    @Test("UPDATE BINARY writes in place; read-only EF 6982; past the end 6A84 / 6B00; SFI form")
    func updateBinary() {
        var card = makeCard()
        selectApplicationFile(&card, "01 01")
        #expect(send(&card, "00 D6 00 02 02 AA BB") == [0x90, 0x00])
        #expect(send(&card, "00 B0 00 00 05") == bytes("00 01 AA BB 04 90 00"))
        #expect(send(&card, "00 D6 00 1F 02 01 02") == [0x6A, 0x84])
        #expect(send(&card, "00 D6 00 21 01 01") == [0x6B, 0x00])
        #expect(send(&card, "00 D6 00 1F 01 EE") == [0x90, 0x00])
        #expect(send(&card, "00 B0 00 1F 01") == bytes("EE 90 00"))
        #expect(send(&card, "00 D6 81 00 01 FF") == [0x90, 0x00])
        #expect(send(&card, "00 B0 00 00 01") == bytes("FF 90 00"))
        #expect(send(&card, "00 D6 83 00 01 FF") == [0x69, 0x82])
        #expect(send(&card, "00 A4 02 0C 02 01 03") == [0x90, 0x00])
        #expect(send(&card, "00 D6 00 00 01 FF") == [0x69, 0x82])
        #expect(send(&card, "00 B0 00 00 01") == bytes("43 90 00")) // unchanged "C"
        #expect(send(&card, "00 D6 00 00") == [0x67, 0x00])
        #expect(send(&card, "00 D6 00 00 01 FF 00") == [0x67, 0x00]) // case 4 refused
        #expect(
            card.fileSystem.elementaryFile(atPath: [0x7001, 0x0101])?.content.prefix(5) == [
                0xFF, 0x01, 0xAA, 0xBB, 0x04,
            ])
    }

    // MARK: - GET RESPONSE

    @Test("Response longer than maxResponseLength: 61xx then GET RESPONSE chunks, exact bytes")
    func getResponseSequence() {
        var card = makeCard(ISO7816CardOptions(maxResponseLength: 64))
        selectApplicationFile(&card, "01 02")
        var received: [UInt8] = []
        var response = send(&card, "00 B0 00 00 00")
        #expect(response.count == 66)
        #expect(Array(response.suffix(2)) == [0x61, 0xC0])
        received += response.dropLast(2)
        for expected: UInt8 in [0x80, 0x40] {
            response = card.process([0x00, 0xC0, 0x00, 0x00, response[response.count - 1]])
            #expect(Array(response.suffix(2)) == [0x61, expected])
            received += response.dropLast(2)
        }
        response = card.process([0x00, 0xC0, 0x00, 0x00, response[response.count - 1]])
        #expect(Array(response.suffix(2)) == [0x90, 0x00])
        received += response.dropLast(2)
        #expect(received == Array(Self.ef0102[0..<256]))
        #expect(send(&card, "00 C0 00 00 10") == [0x69, 0x85]) // nothing left
    }

    @Test("GET RESPONSE: wrong Le 6Cxx keeps the data; Le 00 takes the rest; final status carried")
    func getResponseLe() {
        var card = makeCard(ISO7816CardOptions(maxResponseLength: 4))
        selectApplicationFile(&card, "01 02")
        #expect(send(&card, "00 B0 03 E0 00") == Array(Self.ef0102[992..<996]) + [0x61, 0x04])
        #expect(send(&card, "00 C0 00 00 05") == [0x6C, 0x04])
        #expect(send(&card, "00 C0 00 00 04") == Array(Self.ef0102[996..<1000]) + [0x62, 0x82])

        #expect(send(&card, "00 B0 00 00 0A") == Array(Self.ef0102[0..<4]) + [0x61, 0x06])
        #expect(send(&card, "00 C0 00 00 00") == Array(Self.ef0102[4..<8]) + [0x61, 0x02])
        #expect(send(&card, "00 C0 00 00 02") == Array(Self.ef0102[8..<10]) + [0x90, 0x00])

        #expect(send(&card, "00 B0 00 00 0A") == Array(Self.ef0102[0..<4]) + [0x61, 0x06])
        #expect(send(&card, "00 C0 01 00 06") == [0x6A, 0x86])
        #expect(send(&card, "00 C0 00 00 06") == [0x69, 0x85]) // the failed GET RESPONSE dropped the data

        #expect(send(&card, "00 B0 00 00 0A") == Array(Self.ef0102[0..<4]) + [0x61, 0x06])
        #expect(send(&card, "00 B0 00 00 01") == bytes("00 90 00")) // another command discards the rest
        #expect(send(&card, "00 C0 00 00 06") == [0x69, 0x85])
    }

    @Test("FCI longer than Le comes with 61xx")
    func fciChained() {
        var card = makeCard()
        #expect(send(&card, "00 A4 04 00 07 \(Self.aid) 05") == bytes("6F 0D 83 02 70 61 0A"))
        #expect(send(&card, "00 C0 00 00 0A") == bytes("01 84 07 \(Self.aid) 90 00"))
    }

    // MARK: - strict Le

    @Test("strictLe: case 2 with Le beyond the data gives 6Cxx, then the corrected Le works")
    func strictLe() {
        var card = makeCard(ISO7816CardOptions(strictLe: true))
        selectApplicationFile(&card, "01 01")
        #expect(send(&card, "00 B0 00 00 00") == [0x6C, 0x20])
        #expect(send(&card, "00 B0 00 00 20") == (0..<32).map { UInt8($0) } + [0x90, 0x00])
        #expect(send(&card, "00 B0 00 10 20") == [0x6C, 0x10])
        #expect(send(&card, "00 B0 00 00 10") == (0..<16).map { UInt8($0) } + [0x90, 0x00])

        var chained = makeCard(ISO7816CardOptions(maxResponseLength: 16, strictLe: true))
        selectApplicationFile(&chained, "01 01")
        #expect(send(&chained, "00 B0 00 00 20") == (0..<16).map { UInt8($0) } + [0x61, 0x10])
        #expect(send(&chained, "00 C0 00 00 00") == [0x6C, 0x10])
        #expect(send(&chained, "00 C0 00 00 10") == (16..<32).map { UInt8($0) } + [0x90, 0x00])
    }

    // MARK: - Extended length

    @Test("Extended APDUs: refused with 67 00 unless enabled; long reads and writes when enabled")
    func extendedLength() {
        var short = makeCard()
        selectApplicationFile(&short, "01 02")
        #expect(send(&short, "00 B0 00 00 00 03 E8") == [0x67, 0x00])

        var card = makeCard(ISO7816CardOptions(extendedLength: true, maxResponseLength: 65_536))
        selectApplicationFile(&card, "01 02")
        #expect(send(&card, "00 B0 00 00 00 03 E8") == Self.ef0102 + [0x90, 0x00])
        #expect(send(&card, "00 B0 00 00 00 00 00") == Self.ef0102 + [0x62, 0x82])
        let data = (0..<300).map { UInt8(truncatingIfNeeded: 255 - $0) }
        #expect(card.process(bytes("00 D6 00 64 00 01 2C") + data) == [0x90, 0x00])
        #expect(card.process(bytes("00 B0 00 64 00 01 2C")) == data + [0x90, 0x00])
        // Case 4 extended SELECT.
        #expect(
            send(&card, "00 A4 04 00 00 00 07 \(Self.aid) 00 00") == bytes("6F 0D 83 02 70 01 84 07 \(Self.aid) 90 00"))

        var limited = makeCard(ISO7816CardOptions(extendedLength: true, maxResponseLength: 256))
        selectApplicationFile(&limited, "01 02")
        var response = send(&limited, "00 B0 00 00 00 03 E8")
        var received = Array(response.dropLast(2))
        var rounds = 0
        while response.count >= 2, response[response.count - 2] == 0x61, rounds < 10 {
            response = limited.process([0x00, 0xC0, 0x00, 0x00, response[response.count - 1]])
            received += response.dropLast(2)
            rounds += 1
        }
        #expect(Array(response.suffix(2)) == [0x90, 0x00])
        #expect(rounds == 3)
        #expect(received == Self.ef0102)
    }

    // MARK: - Class and instruction

    @Test("Class and instruction errors")
    func claAndIns() {
        var card = makeCard()
        #expect(send(&card, "80 A4 04 0C 07 \(Self.aid)") == [0x6E, 0x00])
        #expect(send(&card, "FF B0 00 00 04") == [0x6E, 0x00])
        #expect(send(&card, "20 B0 00 00 04") == [0x6E, 0x00])
        #expect(send(&card, "01 A4 04 0C 07 \(Self.aid)") == [0x68, 0x81])
        #expect(send(&card, "0C A4 04 0C 07 \(Self.aid)") == [0x68, 0x82])
        #expect(send(&card, "10 A4 04 0C 07 \(Self.aid)") == [0x68, 0x84])
        #expect(send(&card, "40 A4 04 0C 07 \(Self.aid)") == [0x68, 0x81])
        #expect(send(&card, "00 20 00 01 04 31 32 33 34") == [0x6D, 0x00])
        #expect(send(&card, "00 CA 00 4F 00") == [0x6D, 0x00])
        #expect(send(&card, "00 60 00 00") == [0x6D, 0x00])
    }

    @Test("Power-on clears the selection and pending data")
    func powerOn() {
        var card = makeCard(ISO7816CardOptions(maxResponseLength: 4))
        selectApplicationFile(&card, "01 01")
        #expect(send(&card, "00 B0 00 00 08") == bytes("00 01 02 03 61 04"))
        card.powerOn()
        #expect(send(&card, "00 C0 00 00 04") == [0x69, 0x85])
        #expect(send(&card, "00 B0 00 00 04") == [0x69, 0x86])
    }

    // MARK: - Malformed input

    @Test("Malformed APDUs: too short, Lc mismatch, broken extended fields give 67 00")
    func malformed() {
        var card = makeCard(ISO7816CardOptions(extendedLength: true))
        for apdu in [
            "", "00", "00 A4", "00 A4 04", "00 A4 04 00 07 A0 00", "00 A4 04 00 02 3F 00 00 00",
            "00 B0 00 00 00 01", "00 D6 00 00 00 00 00 AA", "00 D6 00 00 00 00 02 AA",
            "00 D6 00 00 00 00 01 AA BB", "00 D6 00 00 00 00 01 AA BB CC DD",
        ] {
            #expect(send(&card, apdu) == [0x67, 0x00], "\(apdu)")
        }
    }

    @Test("Random garbage never crashes; malformed lengths always give 67 00 (seeded)", arguments: [false, true])
    func fuzz(extended: Bool) {
        var rng = SeededGenerator(seed: extended ? 0xC0FFEE : 0x5EED)
        var card = makeCard(ISO7816CardOptions(extendedLength: extended, maxResponseLength: extended ? 65_536 : 64))
        let sizes = card.fileSystem.masterFile.dedicatedFiles.map { $0.elementaryFiles.map(\.content.count) }
        var failures: [String] = [] // collected, so that one bug does not flood the report
        for _ in 0..<10_000 {
            // Fully random bytes, half of them with class 00 and a supported instruction.
            let length = Int.random(in: 0...300, using: &rng)
            var apdu = (0..<length).map { _ in UInt8.random(in: 0...255, using: &rng) }
            if apdu.count >= 2, Bool.random(using: &rng) {
                apdu[0] = 0x00
                apdu[1] = [0xA4, 0xB0, 0xD6, 0xC0][Int.random(in: 0...3, using: &rng)]
            }
            let response = card.process(apdu)
            if response.count < 2 || (apdu.count < 4 && response != [0x67, 0x00]) {
                failures.append("\(hexString(apdu)) -> \(hexString(response))")
            }

            // Short Lc that disagrees with the number of data bytes.
            let lc = UInt8.random(in: 1...255, using: &rng)
            var dataCount = Int.random(in: 1...260, using: &rng)
            if dataCount == Int(lc) || dataCount == Int(lc) + 1 { dataCount += 2 }
            let malformed =
                [0x00, 0xD6, 0x00, 0x00, lc] + (0..<dataCount).map { _ in UInt8.random(in: 0...255, using: &rng) }
            let answer = card.process(malformed)
            if answer != [0x67, 0x00] { failures.append("\(hexString(malformed)) -> \(hexString(answer))") }
            if Int.random(in: 0..<100, using: &rng) == 0 { card.powerOn() }
        }
        #expect(failures.isEmpty, "\(failures.prefix(5))")
        // Files never change size.
        #expect(card.fileSystem.masterFile.dedicatedFiles.map { $0.elementaryFiles.map(\.content.count) } == sizes)
    }
}
