import CardFlowCrypto
import Foundation
import Testing

@testable import CardFlowSimulator
@testable import CardFlowSimulatorCards

@Suite("DESFire card: PICC level, memory, chaining, persistence")
struct DESFireCardPICCTests {
    @Test("Factory state: kind, technology, 7-byte NXP UID from the seed, GetVersion in three frames")
    func factoryState() {
        var card = DESFireCard(seed: 42)
        card.powerOn()
        #expect(card.kind == "desfire")
        #expect(DESFireCard.persistentKind == "desfire")
        #expect(card.technology == .desfireTypeA)
        #expect(card.uid.count == 7 && card.uid[0] == 0x04)
        #expect(DESFireCard(seed: 42).uid == card.uid)
        #expect(DESFireCard(seed: 43).uid != card.uid)
        #expect(card.send(0x60) == DESFireAnswer(data: h("04 01 01 01 00 1A 05"), status: 0xAF))
        #expect(card.send(0xAF) == DESFireAnswer(data: h("04 01 01 01 04 1A 05"), status: 0xAF))
        let last = card.send(0xAF)
        #expect(last.status == 0x00 && last.data.count == 14 && Array(last.data.prefix(7)) == card.uid)
        #expect(card.send(0x45) == DESFireAnswer(data: h("0F 01"), status: 0x00))
        #expect(card.send(0x64, [0x00]) == DESFireAnswer(data: [0x00], status: 0x00))
        #expect(card.send(0x64, [0x01]).status == 0x40)
        #expect(card.send(0x6E) == DESFireAnswer(data: DESFireBytes.le24(7936), status: 0x00))
        #expect(card.send(0x6A) == DESFireAnswer(data: [], status: 0x00))
        #expect(card.process(h("90 5A 00 00 03 00 00 00 00")) == h("91 00"))
    }

    @Test("ISO wrapping: wrong CLA, P1/P2, inconsistent length, unknown command")
    func wrapping() {
        var card = DESFireCard(seed: 1)
        card.powerOn()
        // READ BINARY needs an EF selected by ISO SELECT (69 86); other ISO instructions 6D 00.
        #expect(card.process(h("00 B0 00 00 00")) == h("69 86"))
        #expect(card.process(h("00 CA 00 00 00")) == h("6D 00"))
        #expect(card.process(h("80 60 00 00 00")) == h("6E 00"))
        #expect(card.process(h("90 60 01 00 00")) == h("6A 86"))
        #expect(card.process(h("90 5A 00 00 05 00 00 00")) == h("67 00"))
        #expect(card.process(h("90 60")) == h("67 00"))
        #expect(card.process(h("90 99 00 00 00")) == h("91 1C"))
        #expect(card.process(h("90 5A 00 00 02 00 00 00")) == h("91 7E"))
        #expect(card.process(h("90 5A 00 00 03 01 02 03 00")) == h("91 A0"))
    }

    @Test("ISO SELECT by DF name: the PICC name selects the PICC level, an application's name the application")
    func isoSelect() throws {
        var card = DESFireCard(seed: 1)
        card.powerOn()
        #expect(card.process(h("00 A4 04 00 07 D2 76 00 00 85 01 00")) == h("90 00"))
        #expect(card.send(0xCA, h("01 00 00 0F 21 10 E1 A0 00 00 00 01")).status == 0x00)
        #expect(card.process(h("00 A4 04 00 05 A0 00 00 00 01 00")) == h("90 00"))
        #expect(card.send(0x45) == DESFireAnswer(data: h("0F 01"), status: 0x00))
        #expect(card.send(0xCD, h("01 01 E1 00 EE EE 08 00 00")).status == 0x00)
        #expect(card.process(h("00 A4 04 00 05 A0 00 00 00 02 00")) == h("6A 82"))
        #expect(card.process(h("00 A4 02 00 02 E1 01 00")) == h("6A 86"))
        #expect(card.process(h("00 A4 04 00 07 D2 76 00 00 85 01 00")) == h("90 00"))
        #expect(card.send(0x6F).status == 0x9D)
        #expect(card.send(0x6A).data == h("01 00 00"))
    }

    @Test("Applications: 28 maximum (CE), duplicates (DE), deletion keeps memory until FormatPICC")
    func applications() throws {
        var card = DESFireCard(seed: 1)
        card.powerOn()
        for aid in 1...28 {
            #expect(card.send(0xCA, [UInt8(aid), 0x00, 0x00, 0x0F, 0x01]).status == 0x00)
        }
        #expect(card.send(0xCA, [29, 0x00, 0x00, 0x0F, 0x01]).status == 0xCE)
        #expect(card.send(0xCA, [1, 0x00, 0x00, 0x0F, 0x01]).status == 0xDE)
        #expect(card.send(0xCA, [0, 0x00, 0x00, 0x0F, 0x01]).status == 0x9E)
        #expect(card.send(0xCA, [30, 0x00, 0x00, 0x0F, 0x0F]).status == 0x9E)
        #expect(card.send(0xCA, [30, 0x00, 0x00, 0x0F, 0xC1]).status == 0x9E)
        #expect(card.send(0xCA, [30, 0x00, 0x00, 0x0F]).status == 0x7E)
        // 28 AIDs = 84 bytes: two frames.
        let first = card.send(0x6A)
        #expect(first.status == 0xAF && first.data.count == 57)
        let ids = card.exchange(0x6A)
        #expect(ids.status == 0x00 && ids.data == (1...28).flatMap { [UInt8($0), 0, 0] })
        // Fill memory in application 1.
        #expect(card.send(0x5A, [1, 0, 0]).status == 0x00)
        #expect(card.send(0xCD, h("01 00 EE EE 00 1E 00")).status == 0x00) // 7680 bytes
        #expect(DESFireBytes.readLE24(card.send(0x6E).data, at: 0) == 256)
        #expect(card.send(0xCD, h("02 00 EE EE 01 01 00")).status == 0x0E) // 257 → 288 bytes
        #expect(card.send(0xCD, h("02 00 EE EE 00 01 00")).status == 0x00)
        #expect(DESFireBytes.readLE24(card.send(0x6E).data, at: 0) == 0)
        #expect(card.send(0xCD, h("03 00 EE EE 01 00 00")).status == 0x0E)
        #expect(card.send(0xDF, [0x01]).status == 0x00)
        #expect(DESFireBytes.readLE24(card.send(0x6E).data, at: 0) == 0)
        // Deleting the application without the PICC master key → AE.
        #expect(card.send(0x5A, [0, 0, 0]).status == 0x00)
        #expect(card.send(0xDA, [1, 0, 0]).status == 0xAE)
        #expect(card.send(0xFC).status == 0xAE)
        let (session, _) = try HostSession.authenticate(
            &card, command: 0x1A, keyNumber: 0, key: .des([UInt8](repeating: 0, count: 16)),
            rndA: h("01 02 03 04 05 06 07 08"))
        var host = try #require(session)
        try host.commandCMAC([0xDA, 1, 0, 0])
        #expect(try host.responseData(card.send(0xDA, [1, 0, 0])) == [])
        try host.commandCMAC([0xDA, 1, 0, 0])
        #expect(card.send(0xDA, [1, 0, 0]).status == 0xA0)
        #expect(DESFireBytes.readLE24(card.send(0x6E).data, at: 0) == 0)
        let (again, _) = try HostSession.authenticate(
            &card, command: 0x1A, keyNumber: 0, key: .des([UInt8](repeating: 0, count: 16)),
            rndA: h("01 02 03 04 05 06 07 08"))
        host = try #require(again)
        try host.commandCMAC([0xFC])
        #expect(try host.responseData(card.send(0xFC)) == [])
        try host.commandCMAC([0x6E])
        #expect(try host.responseData(card.send(0x6E)) == DESFireBytes.le24(7936))
        try host.commandCMAC([0x6A])
        #expect(try host.responseData(card.send(0x6A)) == [])
    }

    @Test("PICC key settings: 0x08 requires the PICC master key for listing and creation; KS bit 3 clear → 9D")
    func piccKeySettings() throws {
        var card = DESFireCard(seed: 1)
        card.powerOn()
        var (session, _) = try HostSession.authenticate(
            &card, command: 0x1A, keyNumber: 0, key: .des([UInt8](repeating: 0, count: 16)),
            rndA: h("01 02 03 04 05 06 07 08"))
        var host = try #require(session)
        session = nil
        #expect(try host.responseData(card.send(0x54, try host.encipher(header: [0x54], data: [0x08]))) == [])
        card.powerOn()
        #expect(card.send(0x6A).status == 0xAE)
        #expect(card.send(0x6D).status == 0xAE)
        #expect(card.send(0xCA, [1, 0, 0, 0x0F, 0x01]).status == 0xAE)
        #expect(card.send(0x45).status == 0xAE)
        (session, _) = try HostSession.authenticate(
            &card, command: 0x1A, keyNumber: 0, key: .des([UInt8](repeating: 0, count: 16)),
            rndA: h("01 02 03 04 05 06 07 08"))
        host = try #require(session)
        try host.commandCMAC([0x45])
        #expect(try host.responseData(card.send(0x45)) == h("08 01"))
        // KS 0x00 (settings frozen) → further changes denied.
        #expect(try host.responseData(card.send(0x54, try host.encipher(header: [0x54], data: [0x00]))) == [])
        #expect(card.send(0x54, try host.encipher(header: [0x54], data: [0x0F])).status == 0x9D)
        // Master key not changeable (KS bit 0 clear) → 9D.
        (session, _) = try HostSession.authenticate(
            &card, command: 0x1A, keyNumber: 0, key: .des([UInt8](repeating: 0, count: 16)),
            rndA: h("01 02 03 04 05 06 07 08"))
        host = try #require(session)
        #expect(
            card.send(0xC4, try host.changeKeyData(keyNumberByte: 0, newKey: [UInt8](repeating: 0x22, count: 16)))
                .status == 0x9D)
    }

    @Test("Application ChangeKey rules: KS nibble E (key itself), F (frozen), key N")
    func changeKeyRules() throws {
        let zero = HostKey.aes([UInt8](repeating: 0, count: 16))
        let newKey = [UInt8](repeating: 0x42, count: 16)
        // Nibble E: each key changes itself.
        var card = DESFireCardAuthenticationTests.cardWithApplication(ks2: 0x83, keySettings: 0xEF)
        var (session, _) = try HostSession.authenticate(
            &card, command: 0xAA, keyNumber: 0, key: zero, rndA: [UInt8](repeating: 1, count: 16))
        var host = try #require(session)
        #expect(
            card.send(
                0xC4,
                try host.changeKeyData(
                    keyNumberByte: 2, newKey: newKey, oldKey: [UInt8](repeating: 0, count: 16), aesVersion: 1)
            ).status == 0xAE)
        (session, _) = try HostSession.authenticate(
            &card, command: 0xAA, keyNumber: 2, key: zero, rndA: [UInt8](repeating: 1, count: 16))
        host = try #require(session)
        #expect(
            card.send(0xC4, try host.changeKeyData(keyNumberByte: 2, newKey: newKey, aesVersion: 1))
                == DESFireAnswer(data: [], status: 0x00))
        #expect(card.send(0x64, [0x02]).data == [0x01])
        // Nibble F: frozen.
        card = DESFireCardAuthenticationTests.cardWithApplication(ks2: 0x83, keySettings: 0xFF)
        (session, _) = try HostSession.authenticate(
            &card, command: 0xAA, keyNumber: 0, key: zero, rndA: [UInt8](repeating: 1, count: 16))
        host = try #require(session)
        #expect(
            card.send(
                0xC4,
                try host.changeKeyData(
                    keyNumberByte: 1, newKey: newKey, oldKey: [UInt8](repeating: 0, count: 16), aesVersion: 1)
            ).status == 0x9D)
        // Nibble 2: key 2 changes key 1; key 5 does not exist.
        card = DESFireCardAuthenticationTests.cardWithApplication(ks2: 0x83, keySettings: 0x2F)
        (session, _) = try HostSession.authenticate(
            &card, command: 0xAA, keyNumber: 2, key: zero, rndA: [UInt8](repeating: 1, count: 16))
        host = try #require(session)
        var answer = card.send(
            0xC4,
            try host.changeKeyData(
                keyNumberByte: 1, newKey: newKey, oldKey: [UInt8](repeating: 0, count: 16), aesVersion: 7))
        #expect(try host.responseData(answer) == [])
        answer = card.send(
            0xC4,
            try host.changeKeyData(
                keyNumberByte: 5, newKey: newKey, oldKey: [UInt8](repeating: 0, count: 16), aesVersion: 7))
        #expect(answer.status == 0x40)
        // A corrupted cryptogram → 1E; a short one → 7E.
        (session, _) = try HostSession.authenticate(
            &card, command: 0xAA, keyNumber: 0, key: zero, rndA: [UInt8](repeating: 1, count: 16))
        host = try #require(session)
        var data = try host.changeKeyData(keyNumberByte: 0, newKey: newKey, aesVersion: 1)
        data[5] ^= 0x01
        #expect(card.send(0xC4, data).status == 0x1E)
        (session, _) = try HostSession.authenticate(
            &card, command: 0xAA, keyNumber: 0, key: zero, rndA: [UInt8](repeating: 1, count: 16))
        host = try #require(session)
        data = try host.changeKeyData(keyNumberByte: 0, newKey: newKey, aesVersion: 1)
        #expect(card.send(0xC4, Array(data.dropLast(16))).status == 0x7E)
        #expect(card.send(0xC4, [0x00, 0x01]).status == 0xAE)
    }

    @Test("Session invalidation: SelectApplication, errors, new authentication")
    func sessionInvalidation() throws {
        var card = DESFireCardAuthenticationTests.cardWithApplication(ks2: 0x82)
        #expect(card.send(0xCD, h("01 03 00 00 08 00 00")).status == 0x00)
        let zero = HostKey.aes([UInt8](repeating: 0, count: 16))
        _ = try HostSession.authenticate(
            &card, command: 0xAA, keyNumber: 0, key: zero, rndA: [UInt8](repeating: 1, count: 16))
        #expect(card.send(0x5A, [1, 0, 0]) == DESFireAnswer(data: [], status: 0x00))
        #expect(card.send(0xBD, h("01 00 00 00 00 00 00")).status == 0xAE)
        _ = try HostSession.authenticate(
            &card, command: 0xAA, keyNumber: 0, key: zero, rndA: [UInt8](repeating: 1, count: 16))
        #expect(card.send(0xBD, h("09 00 00 00 00 00 00")).status == 0xF0)
        #expect(card.send(0xBD, h("01 00 00 00 00 00 00")).status == 0xAE)
        _ = try HostSession.authenticate(
            &card, command: 0xAA, keyNumber: 0, key: zero, rndA: [UInt8](repeating: 1, count: 16))
        #expect(card.send(0xAA, [0x05]).status == 0x40)
        #expect(card.send(0x51).status == 0xAE)
    }

    @Test("Command chaining: a long enciphered WriteData over several frames, read back over several frames")
    func chaining() throws {
        var card = DESFireCardAuthenticationTests.cardWithApplication(ks2: 0x82)
        #expect(card.send(0xCD, h("01 03 00 00 00 01 00")).status == 0x00)
        #expect(card.send(0xCD, h("02 00 EE EE 00 01 00")).status == 0x00)
        var (session, _) = try HostSession.authenticate(
            &card, command: 0xAA, keyNumber: 0, key: .aes([UInt8](repeating: 0, count: 16)),
            rndA: [UInt8](repeating: 9, count: 16))
        let host = try #require(session)
        session = nil
        let content = (0..<200).map { UInt8($0) }
        let header = h("01 00 00 00 C8 00 00")
        let wire = header + (try host.encipher(header: [0x3D] + header, data: content))
        let first = card.send(0x3D, Array(wire.prefix(40)))
        #expect(first == DESFireAnswer(data: [], status: 0xAF))
        let answer = card.sendChained(0x3D, wire, chunk: 40)
        #expect(try host.responseData(answer) == [])
        try host.commandCMAC(h("BD 01 00 00 00 00 00 00"))
        let read = card.send(0xBD, h("01 00 00 00 00 00 00"))
        #expect(read.status == 0xAF && read.data.count == 59)
        var all = read.data
        var next = read
        while next.status == 0xAF {
            next = card.send(0xAF)
            all += next.data
        }
        #expect(
            try host.decipherResponse(DESFireAnswer(data: all, status: next.status), length: 256) == content
                + [UInt8](repeating: 0, count: 56))
        // Plain file: too many bytes → 7E; a new command mid-chain abandons the chain.
        #expect(card.send(0x3D, h("02 00 00 00 04 00 00 01 02 03 04 05")).status == 0x7E)
        #expect(card.send(0x3D, h("02 00 00 00 04 00 00 01 02")).status == 0xAF)
        #expect(card.send(0x6F).status == 0x00)
        #expect(card.send(0xAF, h("03 04")).status == 0x1C)
        #expect(card.send(0x3D, h("02 00 00 00 04 00 00 01 02")).status == 0xAF)
        #expect(card.send(0xAF, h("03 04 05")).status == 0x7E)
        #expect(card.sendChained(0x3D, h("02 00 00 00 04 00 00 01 02 03 04"), chunk: 3).status == 0x00)
        #expect(card.send(0xBD, h("02 00 00 00 04 00 00")).data == h("01 02 03 04"))
    }

    @Test("State save/load round trip through CardStateStore; volatile state is not persisted")
    func persistence() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("desfire-\(UUID().uuidString)")
            .path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let store = CardStateStore(path: directory + "/card.json")
        var card = DESFireCardAuthenticationTests.cardWithApplication(ks2: 0x82)
        #expect(card.send(0xCD, h("01 00 EE EE 08 00 00")).status == 0x00)
        #expect(card.send(0xCB, h("02 00 EE EE 08 00 00")).status == 0x00)
        #expect(card.send(0x3D, h("01 00 00 00 02 00 00 CA FE")).status == 0x00)
        #expect(card.send(0x3D, h("02 00 00 00 02 00 00 BE EF")).status == 0x00) // not committed
        try store.save(card)
        #expect(try store.storedKind() == "desfire")
        var loaded = try store.load(DESFireCard.self)
        loaded.powerOn()
        #expect(loaded.uid == card.uid)
        #expect(loaded.applicationIDs == [1])
        #expect(loaded.freeMemory == card.freeMemory)
        #expect(loaded.send(0x5A, [1, 0, 0]).status == 0x00)
        #expect(loaded.send(0xBD, h("01 00 00 00 02 00 00")).data == h("CA FE"))
        #expect(loaded.send(0xBD, h("02 00 00 00 02 00 00")).data == h("00 00"))
        #expect(loaded.send(0xC7).status == 0x00)
        #expect(loaded.send(0xBD, h("02 00 00 00 02 00 00")).data == h("00 00"))
    }

    @Test("Random UID: a fresh 4-byte 08… ID per power-on; GetCardUID returns the real UID")
    func randomUID() throws {
        var card = DESFireCard(seed: 11, randomUID: true)
        card.powerOn()
        let first = card.uid
        card.powerOn()
        let second = card.uid
        #expect(first.count == 4 && first[0] == 0x08)
        #expect(second.count == 4 && second[0] == 0x08)
        #expect(first != second)
        #expect(card.realUID == DESFireCard(seed: 11).uid)
        let getVersion = card.exchange(0x60)
        #expect(Array(getVersion.data[14..<21]) == [UInt8](repeating: 0, count: 7))
        var (session, _) = try HostSession.authenticate(
            &card, command: 0x1A, keyNumber: 0, key: .des([UInt8](repeating: 0, count: 16)),
            rndA: h("01 02 03 04 05 06 07 08"))
        var host = try #require(session)
        session = nil
        try host.commandCMAC([0x51])
        #expect(try host.decipherResponse(card.send(0x51), length: 7) == card.realUID)
        // Legacy session: CRC16, IV 0.
        var (legacy, _) = try HostSession.authenticate(
            &card, command: 0x0A, keyNumber: 0, key: .des([UInt8](repeating: 0, count: 16)),
            rndA: h("01 02 03 04 05 06 07 08"))
        host = try #require(legacy)
        legacy = nil
        #expect(try host.decipherResponse(card.send(0x51), length: 7) == card.realUID)
        // The random-UID flag survives persistence.
        let data = try JSONEncoder().encode(card)
        var decoded = try JSONDecoder().decode(DESFireCard.self, from: data)
        decoded.powerOn()
        #expect(decoded.randomUID && decoded.uid.count == 4 && decoded.realUID == card.realUID)
    }

    @Test("Simulator setup makes and restores DESFire cards")
    func simulatorSetup() throws {
        let card = try SimulatorSetup.makeCard(.desfire, seed: 5)
        #expect(card?.kind == "desfire")
        #expect((card as? DESFireCard)?.uid == DESFireCard(seed: 5).uid)
    }

    @Test("Fuzz: random byte strings never trap and always answer with a status word")
    func fuzz() {
        var generator = SeededRandom(seed: 0xDE5F)
        var card = DESFireCardAuthenticationTests.cardWithApplication(ks2: 0x82)
        #expect(card.send(0xCD, h("01 03 00 00 40 00 00")).status == 0x00)
        #expect(card.send(0xCC, h("02 01 00 00 00 00 00 00 10 27 00 00 00 00 00 00 01")).status == 0x00)
        #expect(card.send(0xC0, h("03 00 00 00 04 00 00 04 00 00")).status == 0x00)
        let interesting: [UInt8] = [
            0x0A, 0x1A, 0xAA, 0xAF, 0x5A, 0x54, 0xC4, 0x5F, 0x3D, 0xBD, 0x3B, 0xBB, 0x0C, 0xDC, 0x1C,
            0x6C, 0xCA, 0xDA, 0xCD, 0xCB, 0xCC, 0xC1, 0xC0, 0xDF, 0xF5, 0x60, 0x51, 0xFC, 0xC7, 0xA7, 0xEB,
        ]
        for round in 0..<20_000 {
            let length = Int(generator.next() % 48)
            var data = (0..<length).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
            let command: [UInt8]
            switch round % 4 {
            case 0:
                command = data
            default:
                let ins = interesting[Int(generator.next() % UInt64(interesting.count))]
                if ins == 0x5A, round % 3 == 0 { data = [1, 0, 0] }
                command = desfireAPDU(ins, data)
            }
            let response = card.process(command)
            #expect(response.count >= 2)
            if round % 997 == 0 { card.powerOn() }
            if round % 50 == 0 {
                _ = try? HostSession.authenticate(
                    &card, command: 0xAA, keyNumber: 0, key: .aes([UInt8](repeating: 0, count: 16)),
                    rndA: [UInt8](repeating: 1, count: 16))
            }
        }
    }
}
