import CardFlowCrypto
import Testing

@testable import CardFlowSimulator
@testable import CardFlowSimulatorCards

/// SDM/SUN mirroring against AN12196 rev. 2.0 §3.3–3.4 (Tables 2–5): same keys, UID and
/// counter give the note's URLs. The random padding of PICCData is scripted to the note's.
@Suite("NTAG 424 DNA card: SUN mirror")
struct NTAG424CardSUNTests {
    typealias T = NTAG424Test

    /// Reads the whole NDEF file with ISO commands, as a phone does.
    static func readNDEF(_ card: inout SimulatedNTAG424Card) -> [UInt8] {
        #expect(card.process(T.selectApplication) == [0x90, 0x00])
        #expect(card.process(bytes("00A4000C02E104")) == [0x90, 0x00])
        let answer = card.process(bytes("00B0000000"))
        #expect(Array(answer.suffix(2)) == [0x90, 0x00])
        return Array(answer.dropLast(2))
    }

    /// The padding the card drew for a published PICCData (deciphered with key 16 × 00).
    static func padding(of piccData: String, count: Int) throws -> [UInt8] {
        Array(try AES128Cipher(key: T.zeroKey).decryptBlock(bytes(piccData)).suffix(count))
    }

    @Test("Table 4: e=PICCData, c=SDMMAC over the empty input")
    func table4() throws {
        let template =
            "ntag.nxp.com/424?e=" + String(repeating: "0", count: 32) + "&c=" + String(repeating: "0", count: 16)
        let file = T.uriFile(template)
        let e = T.offset(after: "?e=", in: file)
        let c = T.offset(after: "&c=", in: file)
        let sdm = SimulatedNTAG424SDMSettings(
            mirrorsUID: true, mirrorsReadCounter: true, metaReadKey: 0, fileReadKey: 0,
            piccDataOffset: e, macInputOffset: c, macOffset: c)
        let settings = SimulatedNTAG424FileSettings(
            communicationMode: .plain, accessRights: .init(read: 0xE, write: 0, readWrite: 0, change: 0), sdm: sdm)
        var card = try SimulatedNTAG424Card(
            configuration: .init(
                uid: bytes("04DE5F1EACC040"), ndefFile: file,
                ndefFileSettings: settings, sdmReadCounter: 0x3C))
        card.scriptedRandom = try Self.padding(of: "EF963FF7828658A599F3041510671E88", count: 5)
        card.powerOn()
        let image = Self.readNDEF(&card)
        #expect(T.text(image).hasSuffix("ntag.nxp.com/424?e=EF963FF7828658A599F3041510671E88&c=94EED9EE65337086"))
        #expect(card.sdmReadCounter == 0x3D)
        // A second read of the same selection shows the same message; a new selection counts again.
        #expect(Array(card.process(bytes("00B0000000")).dropLast(2)) == image)
        #expect(card.sdmReadCounter == 0x3D)
        _ = Self.readNDEF(&card)
        #expect(card.sdmReadCounter == 0x3E)
    }

    @Test(
        "Tables 3 and 5: PICCData, SDMENCFileData and SDMMAC over the text from enc to &cmac=",
        arguments: [
            (
                counter: UInt32(1),
                url:
                    "my424dna.com/?picc_data=FDE4AFA99B5C820A2C1BB0F1C792D0EB&enc=94592FDE69FA06E8E3B6CA686A22842B&cmac=C48B89C17A233B2C"
            ),
            (
                counter: UInt32(8),
                url:
                    "www.my424dna.com/?picc_data=FD91EC264309878BE6345CBE53BADF40&enc=CEE9A53E3E463EF1F459635736738962&cmac=ECC1E7F6C6C73BF6"
            ),
        ])
    func tables3And5(counter: UInt32, url: String) throws {
        let host = String(url.prefix { $0 != "?" })
        let template =
            host + "?picc_data=" + String(repeating: "0", count: 32) + "&enc=" + String(repeating: "x", count: 16)
            + String(repeating: "0", count: 16) + "&cmac=" + String(repeating: "0", count: 16)
        let file = T.uriFile(template)
        let picc = T.offset(after: "picc_data=", in: file)
        let enc = T.offset(after: "&enc=", in: file)
        let mac = T.offset(after: "&cmac=", in: file)
        let sdm = SimulatedNTAG424SDMSettings(
            mirrorsUID: true, mirrorsReadCounter: true, encryptsFileData: true, metaReadKey: 0, fileReadKey: 0,
            piccDataOffset: picc, macInputOffset: enc, encOffset: enc, encLength: 32, macOffset: mac)
        let settings = SimulatedNTAG424FileSettings(
            communicationMode: .plain, accessRights: .init(read: 0xE, write: 0, readWrite: 0, change: 0), sdm: sdm)
        var card = try SimulatedNTAG424Card(
            configuration: .init(
                uid: bytes("04958CAA5C5E80"), ndefFile: file,
                ndefFileSettings: settings, sdmReadCounter: counter - 1))
        let published = String(url.split(separator: "=")[1].prefix(32))
        card.scriptedRandom = try Self.padding(of: published, count: 5)
        card.powerOn()
        #expect(T.text(Self.readNDEF(&card)).hasSuffix(url))
    }

    @Test("plain UID and counter mirror (icedevml/sdm-backend test_plain_sdm)")
    func plainMirror() throws {
        // Not AN12196: sdm-backend's vector uid=041E3C8A2D6B80, ctr=000006, cmac=4B00064004B0B3D3
        // (file read key 16 × 00, MAC over the empty input).
        let template =
            "sdm.example/?uid=" + String(repeating: "0", count: 14) + "&ctr=000000&cmac="
            + String(repeating: "0", count: 16)
        let file = T.uriFile(template)
        let uid = T.offset(after: "uid=", in: file)
        let ctr = T.offset(after: "ctr=", in: file)
        let mac = T.offset(after: "cmac=", in: file)
        let sdm = SimulatedNTAG424SDMSettings(
            mirrorsUID: true, mirrorsReadCounter: true, counterRetrievalKey: 0xE, metaReadKey: 0xE, fileReadKey: 0,
            uidOffset: uid, readCounterOffset: ctr, macInputOffset: mac, macOffset: mac)
        let settings = SimulatedNTAG424FileSettings(
            communicationMode: .plain, accessRights: .init(read: 0xE, write: 0, readWrite: 0, change: 0), sdm: sdm)
        var card = try SimulatedNTAG424Card(
            configuration: .init(
                uid: bytes("041E3C8A2D6B80"), ndefFile: file,
                ndefFileSettings: settings, sdmReadCounter: 5))
        card.powerOn()
        #expect(T.text(Self.readNDEF(&card)).hasSuffix("?uid=041E3C8A2D6B80&ctr=000006&cmac=4B00064004B0B3D3"))
        // GetFileCounters is free (SDMCtrRet E): counter LSB first and two reserved bytes.
        #expect(T.send(&card, "90F6000001 02 00") == "06000000009100")
    }

    @Test("SDMReadCtrLimit stops unauthenticated reads")
    func readCounterLimit() throws {
        let file = T.uriFile("x.example/?c=000000")
        let ctr = T.offset(after: "?c=", in: file)
        let sdm = SimulatedNTAG424SDMSettings(
            mirrorsReadCounter: true, readCounterLimit: 2, metaReadKey: 0xE, readCounterOffset: ctr)
        let settings = SimulatedNTAG424FileSettings(
            communicationMode: .plain, accessRights: .init(read: 0xE, write: 0, readWrite: 0, change: 0), sdm: sdm)
        var card = try SimulatedNTAG424Card(configuration: .init(ndefFile: file, ndefFileSettings: settings))
        card.powerOn()
        #expect(T.text(Self.readNDEF(&card)).hasSuffix("?c=000001"))
        #expect(T.text(Self.readNDEF(&card)).hasSuffix("?c=000002"))
        _ = card.process(bytes("00A4000C02E104"))
        #expect(card.process(bytes("00B0000000")) == [0x69, 0x82])
        #expect(T.send(&card, "90AD0000070200000000000000") == "919D")
    }
}
