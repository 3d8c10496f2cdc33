import CardFlowCrypto
import Testing

@testable import CardFlowSimulator
@testable import CardFlowSimulatorCards

@Suite("DESFire card: files, transactions, access rights")
struct DESFireCardFileTests {
    /// Application 000001 (2 AES keys, KS 0x0F) selected, no session.
    static func card() -> DESFireCard {
        DESFireCardAuthenticationTests.cardWithApplication(ks2: 0x82)
    }

    @Test("Standard file: new content reads as zeros, plain write/read, length 0 reads to the end, boundaries")
    func standardFile() {
        var card = Self.card()
        #expect(card.send(0xCD, h("01 00 EE EE 10 00 00")).status == 0x00)
        #expect(
            card.send(0xBD, h("01 00 00 00 00 00 00"))
                == DESFireAnswer(data: [UInt8](repeating: 0, count: 16), status: 0x00))
        #expect(card.send(0x3D, h("01 02 00 00 03 00 00 AA BB CC")).status == 0x00)
        #expect(card.send(0xBD, h("01 01 00 00 04 00 00")) == DESFireAnswer(data: h("00 AA BB CC"), status: 0x00))
        #expect(card.send(0xBD, h("01 0E 00 00 00 00 00")) == DESFireAnswer(data: h("00 00"), status: 0x00))
        #expect(card.send(0xBD, h("01 0E 00 00 03 00 00")).status == 0xBE)
        #expect(card.send(0xBD, h("01 10 00 00 00 00 00")).status == 0xBE)
        #expect(card.send(0x3D, h("01 0F 00 00 02 00 00 01 02")).status == 0xBE)
        #expect(card.send(0xBD, h("05 00 00 00 00 00 00")).status == 0xF0)
        #expect(card.send(0xBD, h("01 00 00 00 00 00")).status == 0x7E)
        #expect(card.send(0xF5, [0x01]) == DESFireAnswer(data: h("00 00 EE EE 10 00 00"), status: 0x00))
        #expect(card.send(0x6F) == DESFireAnswer(data: [0x01], status: 0x00))
    }

    @Test("Access rights: key-based right without session → AE, never → 9D, wrong key → AE")
    func accessRights() throws {
        var card = Self.card()
        // Read key 1, Write never, R/W never, Change key 0.
        #expect(card.send(0xCD, h("01 00 F0 1F 08 00 00")).status == 0x00)
        #expect(card.send(0xBD, h("01 00 00 00 00 00 00")).status == 0xAE)
        #expect(card.send(0x3D, h("01 00 00 00 01 00 00 01")).status == 0x9D)
        let (session, _) = try HostSession.authenticate(
            &card, command: 0xAA, keyNumber: 0, key: DESFireCardSecureMessagingTests.zeroAES,
            rndA: [UInt8](repeating: 1, count: 16))
        #expect(session != nil)
        #expect(card.send(0xBD, h("01 00 00 00 00 00 00")).status == 0xAE)
        var (key1, _) = try HostSession.authenticate(
            &card, command: 0xAA, keyNumber: 1, key: DESFireCardSecureMessagingTests.zeroAES,
            rndA: [UInt8](repeating: 2, count: 16))
        let host = try #require(key1)
        key1 = nil
        try host.commandCMAC(h("BD 01 00 00 00 00 00 00"))
        #expect(try host.responseData(card.send(0xBD, h("01 00 00 00 00 00 00"))) == [UInt8](repeating: 0, count: 8))
    }

    @Test("Free access on an enciphered file is plain, and CMACed in an EV1 session (§4.6)")
    func freeAccessIsPlain() throws {
        var card = Self.card()
        #expect(card.send(0xCD, h("01 03 EE EE 08 00 00")).status == 0x00)
        #expect(card.send(0x3D, h("01 00 00 00 02 00 00 12 34")).status == 0x00)
        var (session, _) = try HostSession.authenticate(
            &card, command: 0xAA, keyNumber: 0, key: DESFireCardSecureMessagingTests.zeroAES,
            rndA: [UInt8](repeating: 1, count: 16))
        let host = try #require(session)
        session = nil
        try host.commandCMAC(h("BD 01 00 00 00 02 00 00"))
        #expect(try host.responseData(card.send(0xBD, h("01 00 00 00 02 00 00"))) == h("12 34"))
    }

    @Test("Backup file: writes pending until commit, abort discards, doubled memory")
    func backupFile() {
        var card = Self.card()
        let before = card.send(0x6E).data
        #expect(card.send(0xCB, h("02 00 EE EE 20 00 00")).status == 0x00)
        let after = card.send(0x6E).data
        #expect(DESFireBytes.readLE24(before, at: 0) - DESFireBytes.readLE24(after, at: 0) == 64)
        #expect(card.send(0x3D, h("02 00 00 00 02 00 00 01 02")).status == 0x00)
        #expect(card.send(0xBD, h("02 00 00 00 02 00 00")).data == h("00 00"))
        #expect(card.send(0xA7).status == 0x00)
        #expect(card.send(0xC7).status == 0x00)
        #expect(card.send(0xBD, h("02 00 00 00 02 00 00")).data == h("00 00"))
        #expect(card.send(0x3D, h("02 00 00 00 02 00 00 01 02")).status == 0x00)
        #expect(card.send(0xC7).status == 0x00)
        #expect(card.send(0xBD, h("02 00 00 00 02 00 00")).data == h("01 02"))
    }

    @Test("Power loss and re-selection discard uncommitted changes")
    func powerLoss() {
        var card = Self.card()
        #expect(card.send(0xCB, h("02 00 EE EE 08 00 00")).status == 0x00)
        #expect(card.send(0x3D, h("02 00 00 00 01 00 00 55")).status == 0x00)
        card.powerOn()
        #expect(card.send(0x5A, h("01 00 00")).status == 0x00)
        #expect(card.send(0xC7).status == 0x00)
        #expect(card.send(0xBD, h("02 00 00 00 01 00 00")).data == [0x00])
        #expect(card.send(0x3D, h("02 00 00 00 01 00 00 55")).status == 0x00)
        #expect(card.send(0x5A, h("01 00 00")).status == 0x00)
        #expect(card.send(0xC7).status == 0x00)
        #expect(card.send(0xBD, h("02 00 00 00 01 00 00")).data == [0x00])
    }

    @Test("Value file: credit/debit pending until commit, limits → BE, limited credit")
    func valueFile() {
        var card = Self.card()
        // Lower 0, upper 10000, value 5000, limited credit enabled; all rights free.
        #expect(card.send(0xCC, h("03 00 EE EE 00 00 00 00 10 27 00 00 88 13 00 00 01")).status == 0x00)
        #expect(
            card.send(0xF5, [0x03])
                == DESFireAnswer(data: h("02 00 EE EE 00 00 00 00 10 27 00 00 00 00 00 00 01"), status: 0x00))
        #expect(card.send(0xDC, h("03 14 05 00 00")).status == 0x00) // debit 1300
        #expect(card.send(0x0C, h("03 14 00 00 00")).status == 0x00) // credit 20
        #expect(card.send(0xDC, h("03 A4 06 00 00")).status == 0x00) // debit 1700
        #expect(card.send(0x6C, [0x03]).data == DESFireBytes.le32(5000))
        #expect(card.send(0xC7).status == 0x00)
        #expect(card.send(0x6C, [0x03]).data == DESFireBytes.le32(2020))
        #expect(card.send(0x1C, h("03 B9 0B 00 00")).status == 0xBE) // 3001 > 3000
        #expect(card.send(0x1C, h("03 B8 0B 00 00")).status == 0x00) // 3000
        #expect(card.send(0xC7).status == 0x00)
        #expect(card.send(0x6C, [0x03]).data == DESFireBytes.le32(5020))
        #expect(card.send(0xF5, [0x03]).data[12..<16] == [0, 0, 0, 0][...])
        #expect(card.send(0x0C, h("03 10 27 00 00")).status == 0xBE) // over the upper limit
        #expect(card.send(0xDC, h("03 00 00 01 00")).status == 0xBE) // below the lower limit
        #expect(card.send(0x0C, h("03 FF FF FF FF")).status == 0x9E) // negative amount
        #expect(card.send(0x0C, h("03 01 00 00")).status == 0x7E)
        // Limited credit disabled → 9D.
        #expect(card.send(0xCC, h("04 00 EE EE 00 00 00 00 10 27 00 00 00 00 00 00 00")).status == 0x00)
        #expect(card.send(0x1C, h("04 01 00 00 00")).status == 0x9D)
        // Lower > upper → 9E.
        #expect(card.send(0xCC, h("05 00 EE EE 10 27 00 00 00 00 00 00 00 00 00 00 00")).status == 0x9E)
    }

    @Test("Value file rights: Credit needs R/W, Debit Read/Write/R/W, LimitedCredit Write/R/W")
    func valueRights() {
        var card = Self.card()
        // Read free, Write never, R/W never.
        #expect(card.send(0xCC, h("03 00 FF EF 00 00 00 00 10 27 00 00 88 13 00 00 01")).status == 0x00)
        #expect(card.send(0x6C, [0x03]).status == 0x00)
        #expect(card.send(0xDC, h("03 01 00 00 00")).status == 0x00)
        #expect(card.send(0x0C, h("03 01 00 00 00")).status == 0x9D)
        #expect(card.send(0x1C, h("03 01 00 00 00")).status == 0x9D)
    }

    @Test("Linear record file: records, newest first numbering, full → BE, clear")
    func linearRecords() {
        var card = Self.card()
        #expect(card.send(0xC1, h("04 00 EE EE 04 00 00 03 00 00")).status == 0x00)
        #expect(card.send(0xBB, h("04 00 00 00 00 00 00")).status == 0xBE)
        for value in UInt8(1)...3 {
            #expect(card.send(0x3B, [0x04, 0x02, 0x00, 0x00, 0x02, 0x00, 0x00, value, value]).status == 0x00)
            #expect(card.send(0x3B, [0x04, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0xA0 | value]).status == 0x00)
            #expect(card.send(0xC7).status == 0x00)
        }
        #expect(
            card.send(0xF5, [0x04]) == DESFireAnswer(data: h("03 00 EE EE 04 00 00 03 00 00 03 00 00"), status: 0x00))
        #expect(card.send(0xBB, h("04 00 00 00 01 00 00")).data == h("A3 00 03 03"))
        #expect(card.send(0xBB, h("04 00 00 00 00 00 00")).data == h("A1 00 01 01 A2 00 02 02 A3 00 03 03"))
        #expect(card.send(0xBB, h("04 01 00 00 02 00 00")).data == h("A1 00 01 01 A2 00 02 02"))
        #expect(card.send(0xBB, h("04 03 00 00 00 00 00")).status == 0xBE)
        #expect(card.send(0x3B, h("04 00 00 00 01 00 00 FF")).status == 0xBE)
        #expect(card.send(0x3B, h("04 03 00 00 02 00 00 FF FF")).status == 0xBE)
        #expect(card.send(0xEB, [0x04]).status == 0x00)
        #expect(card.send(0x3B, h("04 00 00 00 01 00 00 FF")).status == 0x9D)
        // The error aborted the pending clear.
        #expect(card.send(0xC7).status == 0x00)
        #expect(card.send(0xBB, h("04 00 00 00 00 00 00")).data.count == 12)
        #expect(card.send(0xEB, [0x04]).status == 0x00)
        #expect(card.send(0xC7).status == 0x00)
        #expect(card.send(0xBB, h("04 00 00 00 00 00 00")).status == 0xBE)
    }

    @Test("Cyclic record file with MaxRecords N keeps N−1 records, overwriting the oldest")
    func cyclicRecords() {
        var card = Self.card()
        #expect(card.send(0xC0, h("05 00 EE EE 01 00 00 04 00 00")).status == 0x00)
        for value in UInt8(1)...5 {
            #expect(card.send(0x3B, [0x05, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, value]).status == 0x00)
            #expect(card.send(0xC7).status == 0x00)
        }
        #expect(card.send(0xBB, h("05 00 00 00 00 00 00")).data == h("03 04 05"))
        #expect(card.send(0xC0, h("06 00 EE EE 01 00 00 01 00 00")).status == 0x9E)
    }

    @Test("File management: duplicates, file numbers, deletion, ChangeFileSettings, wrong types")
    func fileManagement() throws {
        var card = Self.card()
        #expect(card.send(0xCD, h("01 00 EE EE 08 00 00")).status == 0x00)
        #expect(card.send(0xCD, h("01 00 EE EE 08 00 00")).status == 0xDE)
        #expect(card.send(0xCD, h("20 00 EE EE 08 00 00")).status == 0x9E)
        #expect(card.send(0xCD, h("02 07 EE EE 08 00 00")).status == 0x9E)
        #expect(card.send(0xCD, h("02 00 EE EE 08 00")).status == 0x7E)
        // ISO file IDs only in applications created with ISO support.
        #expect(card.send(0xCD, h("02 01 E1 00 EE EE 08 00 00")).status == 0x7E)
        #expect(card.send(0x6C, [0x01]).status == 0x9E)
        #expect(card.send(0xBB, h("01 00 00 00 00 00 00")).status == 0x9E)
        // ChangeFileSettings with free change right: plain.
        #expect(card.send(0x5F, h("01 03 00 00")).status == 0x00)
        #expect(card.send(0xF5, [0x01]).data == h("00 03 00 00 08 00 00"))
        // Now change right is key 0: needs an authenticated, enciphered command.
        #expect(card.send(0x5F, h("01 00 EE EE")).status == 0xAE)
        var (session, _) = try HostSession.authenticate(
            &card, command: 0xAA, keyNumber: 0, key: DESFireCardSecureMessagingTests.zeroAES,
            rndA: [UInt8](repeating: 1, count: 16))
        let host = try #require(session)
        session = nil
        let cryptogram = try host.encipher(header: [0x5F, 0x01], data: h("00 EE EE"))
        #expect(try host.responseData(card.send(0x5F, [0x01] + cryptogram)) == [])
        try host.commandCMAC([0xF5, 0x01])
        #expect(try host.responseData(card.send(0xF5, [0x01])) == h("00 00 EE EE 08 00 00"))
        try host.commandCMAC([0xDF, 0x01])
        #expect(try host.responseData(card.send(0xDF, [0x01])) == [])
        #expect(card.send(0xDF, [0x01]).status == 0xF0)
        #expect(card.send(0xCD, h("01 00 EE EE 08 00 00")).status == 0x00)
        // Change right never → 9D.
        #expect(card.send(0xCD, h("03 00 EF EF 08 00 00")).status == 0x00)
        #expect(card.send(0x5F, h("03 00 EE EE")).status == 0x9D)
    }

    @Test("ISO application: ISO file IDs, GetISOFileIDs, GetDFNames")
    func isoApplication() {
        var card = DESFireCard(seed: 1)
        card.powerOn()
        #expect(card.send(0xCA, h("56 34 12 2F 2E 45 23 61 69 64 31 32 33 34 35 36")).status == 0x00)
        #expect(card.send(0xCA, h("57 34 12 2F 2E 45 23")).status == 0xDE)
        #expect(card.send(0xCA, h("58 34 12 0F 22 46 23 41 42")).status == 0x00)
        #expect(
            card.exchange(0x6D)
                == DESFireAnswer(
                    data: h("56 34 12 45 23 61 69 64 31 32 33 34 35 36") + h("58 34 12 46 23 41 42"), status: 0x00))
        #expect(card.send(0x6D).data == h("56 34 12 45 23 61 69 64 31 32 33 34 35 36"))
        #expect(card.send(0x5A, h("56 34 12")).status == 0x00)
        #expect(card.send(0xCD, h("01 04 E1 00 EE EE 08 00 00")).status == 0x00)
        #expect(card.send(0xCD, h("02 04 E1 00 EE EE 08 00 00")).status == 0xDE)
        #expect(card.send(0xC1, h("03 05 E1 00 EE EE 08 00 00 02 00 00")).status == 0x00)
        #expect(card.send(0x61) == DESFireAnswer(data: h("04 E1 05 E1"), status: 0x00))
        #expect(card.send(0x45) == DESFireAnswer(data: h("2F 0E"), status: 0x00))
    }

    @Test("Re-authentication does not abort a pending transaction (write with key 1, authenticate key 0, commit)")
    func reauthenticationKeepsTransaction() throws {
        var card = Self.card()
        // Read free, Write key 1, R/W key 1, Change 0.
        #expect(card.send(0xCB, h("02 00 10 E1 08 00 00")).status == 0x00)
        let zero = DESFireCardSecureMessagingTests.zeroAES
        let (key1, _) = try HostSession.authenticate(
            &card, command: 0xAA, keyNumber: 1, key: zero, rndA: [UInt8](repeating: 5, count: 16))
        let host = try #require(key1)
        try host.commandCMAC(h("3D 02 00 00 00 02 00 00 AB CD"))
        #expect(try host.responseData(card.send(0x3D, h("02 00 00 00 02 00 00 AB CD"))) == [])
        let (key0, _) = try HostSession.authenticate(
            &card, command: 0xAA, keyNumber: 0, key: zero, rndA: [UInt8](repeating: 6, count: 16))
        let second = try #require(key0)
        try second.commandCMAC([0xC7])
        #expect(try second.responseData(card.send(0xC7)) == [])
        try second.commandCMAC(h("BD 02 00 00 00 02 00 00"))
        #expect(try second.responseData(card.send(0xBD, h("02 00 00 00 02 00 00"))) == h("AB CD"))
    }

    @Test("Limited credit value follows the debits of the last committed transaction")
    func limitedCreditValue() {
        var card = Self.card()
        #expect(card.send(0xCC, h("03 00 EE EE 00 00 00 00 10 27 00 00 00 00 00 00 01")).status == 0x00)
        for _ in 0..<15 {
            #expect(card.send(0x0C, h("03 64 00 00 00")).status == 0x00)
            #expect(card.send(0xDC, h("03 61 00 00 00")).status == 0x00)
            #expect(card.send(0xC7).status == 0x00)
        }
        #expect(Array(card.send(0xF5, [0x03]).data[12..<16]) == h("61 00 00 00"))
        #expect(card.send(0x6C, [0x03]).data == DESFireBytes.le32(45))
        // A transaction without debits leaves it unchanged.
        #expect(card.send(0x0C, h("03 01 00 00 00")).status == 0x00)
        #expect(card.send(0xC7).status == 0x00)
        #expect(Array(card.send(0xF5, [0x03]).data[12..<16]) == h("61 00 00 00"))
    }
}
