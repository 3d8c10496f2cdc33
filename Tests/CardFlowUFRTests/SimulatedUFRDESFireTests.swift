import CardFlowSimulatorCards
import Testing

@testable import CardFlowSimulatorUFR

/// The simulated reader's DESFire 8x commands (issue 37), driven with raw bytes written here from
/// ufr.md §2/§4/§5 and /work/notes/ufr-desfire-wire-decisions.md through the simulator's own
/// parser and `run`, as a host on the wire would: the document examples byte for byte, the seed
/// workflow with reader keys (write a slot, DES→AES PICC master key, format, create application
/// and file, write, read plain and enciphered, change an application key), and the errors.
/// No client codec is used: frames and expected answers are computed with the local helpers.
@Suite("simulated uFR DESFire 8x", .timeLimit(.minutes(1)))
struct SimulatedUFRDESFireTests {
    // MARK: Raw frames (ufr.md §2.1–§2.2)

    /// XOR of the bytes plus 7.
    static func cks(_ bytes: [UInt8]) -> UInt8 {
        bytes.reduce(0, ^) &+ 7
    }

    /// A CMD (and its CMD_EXT when `ext` is not empty): `55 code AA len par0 par1 cks` + ext + cks.
    static func command(_ code: UInt8, _ parameter0: UInt8 = 0, ext: [UInt8] = []) -> [UInt8] {
        let length = UInt8(ext.isEmpty ? 0 : ext.count + 1)
        let packet: [UInt8] = [0x55, code, 0xAA, length, parameter0, 0x00]
        return packet + [cks(packet)] + (ext.isEmpty ? [] : ext + [cks(ext)])
    }

    /// The ACK of an extended command: `AC code CA len par0 par1 cks` (the simulator echoes [3..5]).
    static func ack(_ code: UInt8, _ parameter0: UInt8 = 0, extCount: Int) -> [UInt8] {
        let packet: [UInt8] = [0xAC, code, 0xCA, UInt8(extCount + 1), parameter0, 0x00]
        return packet + [cks(packet)]
    }

    /// An RSP with RSP_EXT `ext`: `DE code ED len 00 00 cks` + ext + cks.
    static func rsp(_ code: UInt8, _ ext: [UInt8]) -> [UInt8] {
        let packet: [UInt8] = [0xDE, code, 0xED, UInt8(ext.count + 1), 0x00, 0x00]
        return packet + [cks(packet)] + ext + [cks(ext)]
    }

    /// The RSP of an 8x command: status LE16, exec_time 10 (`0A 00`), extra.
    static func status(_ code: UInt8, _ status: UInt16, _ extra: [UInt8] = []) -> [UInt8] {
        rsp(code, [UInt8(status & 0xFF), UInt8(status >> 8), 0x0A, 0x00] + extra)
    }

    static let parametersError: [UInt8] = [0xEC, 0x0F, 0xCE, 0x00, 0x00, 0x00, 0x34]

    /// Feeds `bytes` to the reader as one host's stream and returns everything it answers.
    static func exchange(_ reader: SimulatedUFRReader, _ bytes: [UInt8]) async -> [UInt8] {
        var parser = UFRCommandParser()
        return await exchange(reader, bytes, parser: &parser)
    }

    /// Feeds `bytes` through `parser` (a stream going on) and returns what the reader answers.
    static func exchange(_ reader: SimulatedUFRReader, _ bytes: [UInt8], parser: inout UFRCommandParser) async
        -> [UInt8]
    {
        var answer: [UInt8] = []
        for event in parser.feed(bytes) {
            switch event {
            case .reply(let immediate): answer += immediate
            case .command(let code, let parameter0, let parameter1, let ext):
                answer += await reader.run(code: code, parameter0: parameter0, parameter1: parameter1, ext: ext)
            }
        }
        return answer
    }

    /// Sends an 8x command with CMD_EXT `ext` and returns the answer after its ACK (checked).
    static func send(_ reader: SimulatedUFRReader, _ code: UInt8, _ parameter0: UInt8, _ ext: [UInt8]) async
        -> [UInt8]
    {
        let answer = await exchange(reader, command(code, parameter0, ext: ext))
        let expectedACK = ack(code, parameter0, extCount: ext.count)
        #expect(Array(answer.prefix(7)) == expectedACK, "ACK of \(code)")
        return Array(answer.dropFirst(7))
    }

    // MARK: Layouts (decisions file item 3)

    static let zeros16 = [UInt8](repeating: 0, count: 16)
    static let slot3Key: [UInt8] = [
        0x00, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88, 0x99, 0xAA, 0xBB, 0xCC, 0xDD, 0xEE, 0xFF,
    ]
    static let slot4Key: [UInt8] = (0..<16).map { UInt8(0xA0 + $0) }
    /// AID 0xF00001, little-endian.
    static let aid: [UInt8] = [0x01, 0x00, 0xF0]

    /// Key block K from a reader slot: `01 slot` + 16 zeros (+ AID).
    static func slotKey(_ slot: UInt8, aid: [UInt8] = []) -> [UInt8] { [0x01, slot] + zeros16 + aid }
    /// Key block K with the key in the frame: `00 00` + key (+ AID).
    static func providedKey(_ key: [UInt8], aid: [UInt8] = []) -> [UInt8] { [0x00, 0x00] + key + aid }

    /// 83's CMD_EXT: K, key no, file, auth, offset LE16, length LE16, comm.
    static func readExt(_ key: [UInt8], keyNumber: UInt8, file: UInt8, auth: UInt8 = 1, length: Int, comm: UInt8)
        -> [UInt8]
    {
        key + [keyNumber, file, auth, 0x00, 0x00, UInt8(length & 0xFF), UInt8(length >> 8), comm]
    }

    /// The data of a streamed read: `00 n <n bytes>` chunks until the RSP (`DE`).
    static func chunks(_ bytes: [UInt8]) -> (data: [UInt8], count: Int, rest: [UInt8]) {
        var data: [UInt8] = []
        var index = 0
        var count = 0
        while index + 1 < bytes.count, bytes[index] == 0x00 {
            let n = Int(bytes[index + 1])
            data += bytes[(index + 2)..<min(index + 2 + n, bytes.count)]
            index += 2 + n
            count += 1
        }
        return (data, count, Array(bytes[min(index, bytes.count)...]))
    }

    // MARK: Document examples

    @Test("FREE_MEM (8D): the document's frame layout, the card's free bytes (7936 = 00 1F 00 00)")
    func freeMemory() async {
        // The document's reply for 1000 bytes free: the checksum rule holds for it.
        #expect(Self.cks([0xDE, 0x8D, 0xED, 0x09, 0x00, 0x00]) == 0xBE)
        #expect(Self.cks([0xB9, 0x0B, 0x0A, 0x00, 0xE8, 0x03, 0x00, 0x00]) == 0x5A)
        let reader = SimulatedUFRReader(card: DESFireCard(seed: 1))
        let answer = await Self.exchange(reader, [0x55, 0x8D, 0xAA, 0x00, 0x00, 0x00, 0x79])
        // A factory EV1 8K model has 7936 bytes free (32-byte blocks: 1000 is not reachable).
        #expect(
            answer == [0xDE, 0x8D, 0xED, 0x09, 0x00, 0x00, 0xBE, 0xB9, 0x0B, 0x0A, 0x00, 0x00, 0x1F, 0x00, 0x00, 0xAE])
    }

    @Test("DESFIRE_WRITE_AES_KEY (8E): the document's exchange, the key lands in the slot")
    func writeAESKeyDocumentExample() async {
        let reader = SimulatedUFRReader(card: nil)
        #expect(await reader.readerKeys.isFactoryState)
        var parser = UFRCommandParser()
        var answer = await Self.exchange(reader, [0x55, 0x8E, 0xAA, 0x12, 0x00, 0x00, 0x6A], parser: &parser)
        #expect(answer == [0xAC, 0x8E, 0xCA, 0x12, 0x00, 0x00, 0x01])
        let ext: [UInt8] = [0x03] + Self.slot3Key
        answer = await Self.exchange(reader, ext + [Self.cks(ext)], parser: &parser)
        #expect(answer == [0xDE, 0x8E, 0xED, 0x03, 0x00, 0x00, 0xC5, 0x00, 0x00, 0x07])
        #expect(await reader.readerKeys.key(inSlot: 3) == Self.slot3Key)
        #expect(await reader.readerKeys.key(inSlot: 2) == Self.zeros16)
    }

    // MARK: Seed workflow

    @Test("seed workflow with reader keys: DES→AES, format, application, file, write, read, change key")
    func seedWorkflow() async throws {
        let reader = SimulatedUFRReader(card: DESFireCard(seed: 3))
        let ok = UInt16(3001)

        // Slots 3 and 4.
        var answer = await Self.send(reader, 0x8E, 0x00, [0x03] + Self.slot3Key)
        #expect(answer == [0xDE, 0x8E, 0xED, 0x03, 0x00, 0x00, 0xC5, 0x00, 0x00, 0x07])
        answer = await Self.send(reader, 0x8E, 0x00, [0x04] + Self.slot4Key)
        #expect(answer == Self.rsp(0x8E, [0x00, 0x00]))

        // 86, Par0 02 (DES auth, AES new): the factory DES key in the frame, the new key from slot 3.
        let desToAES: [UInt8] =
            [0x02, 0x30] + Self.zeros16 + [0x00, 0x00, 0x00] + [0x00] + Self.zeros16 + [0x00] + Self.zeros16
        #expect(desToAES.count == 55)
        answer = await Self.send(reader, 0x86, 0x02, desToAES)
        #expect(answer == Self.status(0x86, ok))
        #expect(answer == [0xDE, 0x86, 0xED, 0x05, 0x00, 0x00, 0xB7, 0xB9, 0x0B, 0x0A, 0x00, 0xBF])
        // The card saw ChangeKey with key number 0x80 (AES at the PICC level).
        #expect(await reader.apduLog.contains { $0.count > 5 && $0[1] == 0xC4 && $0[5] == 0x80 })

        // The DES key no longer opens the PICC: 3003 (`BB 0B`).
        answer = await Self.send(reader, 0x8C, 0x20, Self.providedKey(Self.zeros16))
        #expect(answer == Self.status(0x8C, 3003))

        // 8C with slot 3 (AES).
        answer = await Self.send(reader, 0x8C, 0x00, Self.slotKey(3))
        #expect(answer == Self.status(0x8C, ok))

        // 84: AES application F00001, PICC master key from slot 3, settings 0F, 2 keys.
        answer = await Self.send(reader, 0x84, 0x00, Self.slotKey(3, aid: Self.aid) + [0x01, 0x0F, 0x02])
        #expect(answer == Self.status(0x84, ok))
        let card = try #require(await reader.currentCard as? DESFireCard)
        #expect(card.applicationIDs == [0xF0_0001])

        // 85: file 1, 300 bytes, enciphered (03), read key 1, write/RW/change key 0; file 2, 40
        // bytes, plain, free access; both with the application master key (16 × 00) in the frame.
        answer = await Self.send(
            reader, 0x85, 0x00,
            Self.providedKey(Self.zeros16, aid: Self.aid) + [0x01, 0x00, 0x10, 0x2C, 0x01, 0x00, 0x00, 0x01, 0x03])
        #expect(answer == Self.status(0x85, ok))
        answer = await Self.send(
            reader, 0x85, 0x00,
            Self.providedKey(Self.zeros16, aid: Self.aid) + [0x02, 0xEE, 0xEE, 0x28, 0x00, 0x00, 0x00, 0x01, 0x00])
        #expect(answer == Self.status(0x85, ok))
        #expect(await (reader.currentCard as? DESFireCard)?.freeMemory == 7936 - 320 - 64)

        // 82 enciphered: 150 bytes with key 0 (16 × 00 in the frame); `DD`, then the RSP.
        let secret = (0..<150).map { UInt8(truncatingIfNeeded: $0 * 7 + 1) }
        var ext = Self.readExt(
            Self.providedKey(Self.zeros16, aid: Self.aid), keyNumber: 0, file: 1, length: 150, comm: 0x03)
        answer = await Self.send(reader, 0x82, 0x00, ext + secret)
        #expect(answer == [0xDD] + Self.status(0x82, ok))

        // 83 enciphered as 0x03 and as 0x11, in 64-byte chunks: 64 + 64 + 22.
        await reader.setDESFireReadChunkSize(64)
        for comm: UInt8 in [0x03, 0x11] {
            ext = Self.readExt(
                Self.providedKey(Self.zeros16, aid: Self.aid), keyNumber: 0, file: 1, length: 150, comm: comm)
            answer = await Self.send(reader, 0x83, 0x00, ext)
            let streamed = Self.chunks(answer)
            #expect(streamed.data == secret)
            #expect(streamed.count == 3)
            #expect(Array(answer.prefix(2)) == [0x00, 0x40])
            #expect(streamed.rest == Self.status(0x83, ok))
        }
        await reader.setDESFireReadChunkSize(255)

        // Plain file 2, no authentication (free access): one chunk of 40.
        let open = Array("forty bytes of plain data in file two!!!".utf8)
        #expect(open.count == 40)
        ext = Self.readExt(
            Self.providedKey(Self.zeros16, aid: Self.aid), keyNumber: 0, file: 2, auth: 0, length: 40, comm: 0x00)
        answer = await Self.send(reader, 0x82, 0x00, ext + open)
        #expect(answer == [0xDD] + Self.status(0x82, ok))
        answer = await Self.send(reader, 0x83, 0x00, ext)
        #expect(answer == [0x00, 0x28] + open + Self.status(0x83, ok))

        // 86, AES/AES: application key 1 changed with key 0 from slot 5 (factory 16 × 00) to
        // slot 4's key, its old value from slot 6 (factory): flags 07 | 6 << 4, slots 5 | 4 << 4.
        let change: [UInt8] =
            [0x67, 0x45] + Self.zeros16 + Self.aid + [0x00] + Self.zeros16 + [0x01] + Self.zeros16
        answer = await Self.send(reader, 0x86, 0x00, change)
        #expect(answer == Self.status(0x86, ok))

        // Read file 1 with key 1 from slot 4; the old key 1 (16 × 00) is refused: 3003.
        ext = Self.readExt(Self.slotKey(4, aid: Self.aid), keyNumber: 1, file: 1, length: 150, comm: 0x03)
        answer = await Self.send(reader, 0x83, 0x00, ext)
        #expect(Self.chunks(answer).data == secret)
        #expect(Self.chunks(answer).rest == Self.status(0x83, ok))
        ext = Self.readExt(
            Self.providedKey(Self.zeros16, aid: Self.aid), keyNumber: 1, file: 1, length: 150, comm: 0x03)
        answer = await Self.send(reader, 0x83, 0x00, ext)
        #expect(answer == Self.status(0x83, 3003))

        // FREE_MEM after the files: 7936 − 384 = 7552 = 0x1D80.
        answer = await Self.exchange(reader, Self.command(0x8D))
        #expect(answer == Self.status(0x8D, ok, [0x80, 0x1D, 0x00, 0x00]))
    }

    // MARK: Errors

    @Test("no card: RSP_EXT is exec_time only; 82 still sends DD first")
    func noCard() async {
        let reader = SimulatedUFRReader(card: nil)
        var answer = await Self.exchange(reader, Self.command(0x8D))
        #expect(answer == [0xDE, 0x8D, 0xED, 0x03, 0x00, 0x00, 0xC4, 0x0A, 0x00, 0x11])
        answer = await Self.send(reader, 0x8C, 0x00, Self.slotKey(0))
        #expect(answer == Self.rsp(0x8C, [0x0A, 0x00]))
        let ext = Self.readExt(Self.slotKey(0, aid: Self.aid), keyNumber: 0, file: 1, length: 2, comm: 0x00)
        answer = await Self.send(reader, 0x82, 0x00, ext + [0x01, 0x02])
        #expect(answer == [0xDD] + Self.rsp(0x82, [0x0A, 0x00]))
    }

    @Test("missing application: 0x0CA0; missing file: 0x0CF0; bad comm value: 0x0C9E")
    func cardErrors() async {
        let reader = SimulatedUFRReader(card: DESFireCard(seed: 4))
        var answer = await Self.send(
            reader, 0x85, 0x00,
            Self.providedKey(Self.zeros16, aid: Self.aid) + [0x01, 0x00, 0x00, 0x20, 0x00, 0x00, 0x00, 0x01, 0x00])
        #expect(answer == Self.status(0x85, 0x0CA0))
        #expect(Array(answer.suffix(5)) == [0xA0, 0x0C, 0x0A, 0x00, Self.cks([0xA0, 0x0C, 0x0A, 0x00])])

        // An application without file 5 (PICC master key: factory DES, Par0 0x20).
        answer = await Self.send(
            reader, 0x84, 0x20, Self.providedKey(Self.zeros16, aid: Self.aid) + [0x01, 0x0F, 0x01])
        #expect(answer == Self.status(0x84, 3001))
        var ext = Self.readExt(
            Self.providedKey(Self.zeros16, aid: Self.aid), keyNumber: 0, file: 5, length: 4, comm: 0x00)
        answer = await Self.send(reader, 0x83, 0x00, ext)
        #expect(answer == Self.status(0x83, 0x0CF0))

        ext = Self.readExt(Self.providedKey(Self.zeros16, aid: Self.aid), keyNumber: 0, file: 5, length: 4, comm: 0x02)
        answer = await Self.send(reader, 0x83, 0x00, ext)
        #expect(answer == Self.status(0x83, 0x0C9E))
        // 3K3DES keys are not done by the reader: 3010.
        answer = await Self.send(reader, 0x8C, 0x10, Self.slotKey(0))
        #expect(answer == Self.status(0x8C, 3010))
    }

    @Test("8E: slot 16 → 00 07; keys locked → 00 76, nothing written")
    func writeKeyErrors() async {
        let reader = SimulatedUFRReader(card: nil)
        var answer = await Self.send(reader, 0x8E, 0x00, [0x10] + Self.slot3Key)
        #expect(answer == [0xDE, 0x8E, 0xED, 0x03, 0x00, 0x00, 0xC5, 0x00, 0x07, 0x0E])
        await reader.lockReaderKeys()
        answer = await Self.send(reader, 0x8E, 0x00, [0x02] + Self.slot3Key)
        #expect(answer == [0xDE, 0x8E, 0xED, 0x03, 0x00, 0x00, 0xC5, 0x00, 0x76, 0x7D])
        #expect(await reader.readerKeys.isFactoryState)
        await reader.unlockReaderKeys()
        answer = await Self.send(reader, 0x8E, 0x00, [0x02] + Self.slot3Key)
        #expect(answer == Self.rsp(0x8E, [0x00, 0x00]))
        #expect(await reader.readerKeys.key(inSlot: 2) == Self.slot3Key)
    }

    @Test("malformed CMD_EXT: ERR PARAMETERS_ERROR (EC 0F CE 00 00 00 34), no DD, no crash")
    func malformed() async {
        let reader = SimulatedUFRReader(card: DESFireCard(seed: 5))
        #expect(await Self.send(reader, 0x8C, 0x00, [0x01, 0x03, 0x00]) == Self.parametersError)
        #expect(await Self.send(reader, 0x8E, 0x00, [0x01, 0x02]) == Self.parametersError)
        // Key source 2 (SAM) and slot 16.
        #expect(await Self.send(reader, 0x8C, 0x00, [0x02, 0x00] + Self.zeros16) == Self.parametersError)
        #expect(await Self.send(reader, 0x8C, 0x00, [0x01, 0x10] + Self.zeros16) == Self.parametersError)
        #expect(await Self.send(reader, 0x82, 0x00, [UInt8](repeating: 0, count: 20)) == Self.parametersError)
        // FREE_MEM with a CMD_EXT.
        #expect(await Self.send(reader, 0x8D, 0x00, [0x00]) == Self.parametersError)

        // Any bytes, any code: an answer, never a trap.
        var seed: UInt64 = 0x37
        for code: UInt8 in [0x82, 0x83, 0x84, 0x85, 0x86, 0x8C, 0x8D, 0x8E] {
            for count in [0, 1, 17, 18, 21, 24, 29, 30, 31, 55, 100, 189, 200, 254] {
                let ext = (0..<count).map { _ -> UInt8 in
                    seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                    return UInt8(truncatingIfNeeded: seed >> 33)
                }
                let answer = await Self.exchange(reader, Self.command(code, UInt8(truncatingIfNeeded: seed), ext: ext))
                #expect(!answer.isEmpty)
            }
        }
    }
}
