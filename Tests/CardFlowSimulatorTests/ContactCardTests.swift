import CardFlowSimulator
import Foundation
import Testing

/// The contact side of the simulator: ATRs built from ContactInterface, the T=0 card endpoint
/// at TPDU level, procedure bytes, and the `sim:` contact options.
@Suite struct ContactCardTests {
    @Test func answerToResetBytes() {
        // T=0 only with TA1: 3B 1n TA1 HB (no TD, no TCK).
        #expect(
            ContactInterface(protocols: [0], ta1: 0x96, historicalBytes: [0x41]).answerToReset == [
                0x3B, 0x11, 0x96, 0x41,
            ])
        // T=1 only: TD1 = 81 (T=1, TD2 follows), TD2 = 11 (TA3 follows, T=1), TA3 = IFSC, TCK.
        let t1 = ContactInterface(protocols: [1], ta1: 0x18, historicalBytes: [0x41]).answerToReset
        #expect(t1 == [0x3B, 0x91, 0x18, 0x81, 0x11, 0xFE, 0x41, 0xA6])
        // Dual: TD1 = 80 (T=0 default), TD2 = 11.
        let dual = ContactInterface(protocols: [0, 1], ta1: nil, historicalBytes: []).answerToReset
        #expect(dual == [0x3B, 0x80, 0x80, 0x11, 0xFE, 0xEF])
        // Specific mode T=0 with TC1 and TC2: TA2 = 00, no TCK.
        let specific = ContactInterface(
            protocols: [0], ta1: 0x95, specificMode: true, extraGuardTime: 0xFF,
            waitingInteger: 0x1C, historicalBytes: []
        ).answerToReset
        #expect(specific == [0x3B, 0xD0, 0x95, 0xFF, 0x50, 0x00, 0x1C])
    }

    @Test func answerToResetAnnouncesCRCInTC3() {
        // ISO/IEC 7816-3 §8.2.3 and §11.4.4: the first TC for T=1 (i >= 3) gives the EDC, bit 1
        // set for CRC. T=1 only, TA1 18, one historical byte 41:
        //   TS 3B, T0 91 (TD1 and TA1 present, K = 1), TA1 18, TD1 81 (TD2 present, T=1),
        //   TD2 51 (TA3 and TC3 present, T=1), TA3 FE (IFSC 254), TC3 01 (CRC), 41,
        //   TCK = 91^18^81^51^FE^01^41: 91^18 = 89, ^81 = 08, ^51 = 59, ^FE = A7, ^01 = A6, ^41 = E7.
        let t1 = ContactInterface(protocols: [1], ta1: 0x18, errorDetection: .crc, historicalBytes: [0x41])
        #expect(t1.answerToReset == [0x3B, 0x91, 0x18, 0x81, 0x51, 0xFE, 0x01, 0x41, 0xE7])
        // Dual, no TA1, IFSC 20, no historical bytes: 3B 80, TD1 80 (TD2 present, T=0 first),
        // TD2 51, TA3 20, TC3 01, TCK = 80^80^51^20^01 = 70.
        let dual = ContactInterface(protocols: [0, 1], ta1: nil, ifsc: 0x20, errorDetection: .crc, historicalBytes: [])
        #expect(dual.answerToReset == [0x3B, 0x80, 0x80, 0x51, 0x20, 0x01, 0x70])
        // A T=0-only card has no T=1 group: nothing to announce, the ATR is the LRC one.
        #expect(
            ContactInterface(protocols: [0], ta1: 0x96, errorDetection: .crc).answerToReset
                == ContactInterface.t0Only().answerToReset)
    }

    @Test func case2AnswersExactlyP3OrAsksForTheRightLength() {
        var endpoint = T0CardEndpoint()
        #expect(endpoint.receive([0x00, 0xB0, 0x00, 0x00, 0x04]) == .process([0x00, 0xB0, 0x00, 0x00, 0x04]))
        #expect(endpoint.respond(with: [1, 2, 3, 4, 0x90, 0x00]) == [1, 2, 3, 4, 0x90, 0x00])
        // P3 = 00 means 256; the card has 3 bytes: 6C 03, then the same header with P3 = 03.
        #expect(endpoint.receive([0x00, 0xB0, 0x00, 0x00, 0x00]) == .process([0x00, 0xB0, 0x00, 0x00, 0x00]))
        #expect(endpoint.respond(with: [1, 2, 3, 0x62, 0x82]) == [0x6C, 0x03])
        #expect(endpoint.receive([0x00, 0xB0, 0x00, 0x00, 0x03]) == .respond([1, 2, 3, 0x62, 0x82]))
        // More than P3: P3 bytes and 61 xx, the rest by GET RESPONSE.
        #expect(endpoint.receive([0x00, 0xB0, 0x00, 0x00, 0x02]) == .process([0x00, 0xB0, 0x00, 0x00, 0x02]))
        #expect(endpoint.respond(with: [1, 2, 3, 4, 5, 0x90, 0x00]) == [1, 2, 0x61, 0x03])
        #expect(endpoint.receive([0x00, 0xC0, 0x00, 0x00, 0x05]) == .respond([0x6C, 0x03]))
        #expect(endpoint.receive([0x00, 0xC0, 0x00, 0x00, 0x03]) == .respond([3, 4, 5, 0x90, 0x00]))
    }

    @Test func case4DataIsAnnouncedWith61xxAndFetched() {
        var endpoint = T0CardEndpoint()
        let command: [UInt8] = [0x00, 0xA4, 0x04, 0x00, 0x02, 0x3F, 0x00]
        #expect(endpoint.receive(command) == .process(command))
        let fci = [UInt8](repeating: 0x6F, count: 300)
        #expect(endpoint.respond(with: fci + [0x90, 0x00]) == [0x61, 0x00])
        guard case .respond(let first) = endpoint.receive([0x00, 0xC0, 0x00, 0x00, 0x00]) else {
            Issue.record("no answer"); return
        }
        #expect(first == Array(fci.prefix(256)) + [0x61, 44])
        #expect(endpoint.receive([0x00, 0xC0, 0x00, 0x00, 44]) == .respond(Array(fci.suffix(44)) + [0x90, 0x00]))
        // Nothing kept any more: GET RESPONSE goes to the card model.
        #expect(endpoint.receive([0x00, 0xC0, 0x00, 0x00, 0x01]) == .process([0x00, 0xC0, 0x00, 0x00, 0x01]))
    }

    @Test func envelopeCollectsChainedParts() {
        var endpoint = T0CardEndpoint()
        #expect(endpoint.receive([0x10, 0xC2, 0x00, 0x00, 0x03, 0x00, 0xD6, 0x00]) == .respond([0x90, 0x00]))
        #expect(
            endpoint.receive([0x00, 0xC2, 0x00, 0x00, 0x02, 0x00, 0x00]) == .process([0x00, 0xD6, 0x00, 0x00, 0x00]))
        var refusing = T0CardEndpoint(supportsEnvelope: false)
        #expect(refusing.receive([0x10, 0xC2, 0x00, 0x00, 0x01, 0x00]) == .respond([0x6D, 0x00]))
        // A TPDU whose data does not match P3 is a length error.
        #expect(refusing.receive([0x00, 0xD6, 0x00, 0x00, 0x03, 0x01]) == .respond([0x67, 0x00]))
    }

    @Test func procedureBytesForACharacterLevelReader() {
        // Case 2: ACK (INS), data, SW; or one byte at a time with INS ⊕ FF; NULL bytes first.
        #expect(
            T0ProcedureBytes.cardCharacters(
                header: [0x00, 0xB0, 0, 0, 2], incomingLength: 0, answer: [7, 8, 0x90, 0x00])
                == [0xB0, 7, 8, 0x90, 0x00])
        #expect(
            T0ProcedureBytes.cardCharacters(
                header: [0x00, 0xB0, 0, 0, 2], incomingLength: 0, answer: [7, 8, 0x90, 0x00],
                nullBytes: 2, oneByteAtATime: true) == [0x60, 0x60, 0x4F, 7, 0x4F, 8, 0x90, 0x00])
        // Case 3: ACK then SW after the data; a refused command answers SW at once.
        #expect(
            T0ProcedureBytes.cardCharacters(header: [0x00, 0xD6, 0, 0, 2], incomingLength: 2, answer: [0x90, 0x00])
                == [0xD6, 0x90, 0x00])
        #expect(
            T0ProcedureBytes.cardCharacters(header: [0x00, 0xD6, 0, 0, 2], incomingLength: 2, answer: [0x6D, 0x00])
                == [0x6D, 0x00])
    }

    @Test func aStateFileWithAnImpossibleContactInterfaceIsADecodingErrorNotATrap() throws {
        let good = try JSONEncoder().encode(ContactInterface.dual(ta1: 0x18))
        #expect(try JSONDecoder().decode(ContactInterface.self, from: good) == .dual(ta1: 0x18))
        let object = try #require(try JSONSerialization.jsonObject(with: good) as? [String: Any])
        for (key, value) in [
            ("protocols", [5] as Any), ("protocols", [] as [Int]), ("ifsc", 0),
            ("historicalBytes", Array(repeating: 0x41, count: 300)),
        ] {
            var bad = object
            bad[key] = value
            let data = try JSONSerialization.data(withJSONObject: bad)
            #expect(throws: DecodingError.self, "\(key)") {
                try JSONDecoder().decode(ContactInterface.self, from: data)
            }
        }
        // A settable property past 15 bytes cannot break the ATR's T0 either.
        var long = ContactInterface.t0Only()
        long.historicalBytes = Array(repeating: 0x41, count: 300)
        #expect(long.answerToReset.count == 2 + 1 + 15)
    }

    @Test func simulatorSelectorContactOptions() throws {
        let spec = try SimulatorSpecification(parsing: "sim:iso7816,contact=dual,ta1=18,pps=mute")
        #expect(spec.contactInterface == ContactInterface(protocols: [0, 1], ta1: 0x18, ppsBehaviour: .mute))
        let specific = try SimulatorSpecification(parsing: "sim,contact=t1,ta1=none,specific")
        #expect(specific.contactInterface?.specificMode == true && specific.contactInterface?.ta1 == nil)
        #expect(throws: SimulatorSpecificationError.self) { try SimulatorSpecification(parsing: "sim,ta1=96") }
        #expect(throws: SimulatorSpecificationError.self) { try SimulatorSpecification(parsing: "sim,contact=t2") }
        #expect(throws: SimulatorSpecificationError.self) {
            try SimulatorSpecification(parsing: "sim:desfire,contact=t0")
        }
        let card = try #require(try SimulatorSetup.makeCard(.iso7816, seed: 1, specification: spec))
        #expect(card.contactInterface?.ppsBehaviour == .mute)
        #expect(card.technology == .contact(atr: ContactInterface(protocols: [0, 1], ta1: 0x18).answerToReset))
    }

    @Test func simulatorSelectorErrorDetectionOption() throws {
        let crc = try SimulatorSpecification(parsing: "sim:apdu-test,contact=t1,edc=crc")
        #expect(crc.contactInterface == ContactInterface(protocols: [1], ta1: 0x96, errorDetection: .crc))
        // Order does not matter; dual cards take it too; lrc is the default spelled out.
        #expect(
            try SimulatorSpecification(parsing: "sim,edc=crc,contact=dual").contactInterface?.errorDetection == .crc)
        #expect(try SimulatorSpecification(parsing: "sim,contact=t1,edc=lrc").contactInterface == .t1Only())
        let card = try #require(try SimulatorSetup.makeCard(.apduTest, seed: 1, specification: crc))
        #expect(
            card.technology
                == .contact(atr: ContactInterface(protocols: [1], ta1: 0x96, errorDetection: .crc).answerToReset))
        for bad in ["sim,edc=crc", "sim,contact=t0,edc=crc", "sim,contact=t1,edc=crc16", "sim,contact=t1,edc"] {
            #expect(throws: SimulatorSpecificationError.self, "\(bad)") { try SimulatorSpecification(parsing: bad) }
        }
    }

    @Test func aStateFileFromBeforeTheEDCOptionDecodesWithLRC() throws {
        let encoded = try JSONEncoder().encode(ContactInterface(protocols: [1], ta1: 0x96, errorDetection: .crc))
        #expect(try JSONDecoder().decode(ContactInterface.self, from: encoded).errorDetection == .crc)
        var object = try #require(try JSONSerialization.jsonObject(with: encoded) as? [String: Any])
        object["errorDetection"] = nil
        let old = try JSONSerialization.data(withJSONObject: object)
        #expect(try JSONDecoder().decode(ContactInterface.self, from: old) == .t1Only())
    }

    @Test func dumpDataRatesBecomeTheSimulatedGetDataRatesAnswer() throws {
        let profile = try ReaderProfile(contentsOfFile: try Fixtures.dump("Gemalto_IDBridge_CT30.txt").path)
        let rates = try #require(profile.interfaces[0].supportedDataRates)
        #expect(rates.count == Int(profile.interfaces[0].bNumDataRatesSupported))
        #expect(rates.prefix(3) == [12903, 25806, 51613] && rates.last == 46875)
        let other = try ReaderProfile(contentsOfFile: try Fixtures.dump("SCR331.txt").path)
        #expect(other.interfaces[0].supportedDataRates == nil)
    }
}

/// The default answer to "does this T=0 header send data?" (`VirtualCard.t0TakesData(header:)`),
/// checked against ISO/IEC 7816-4's interindustry instructions: those whose command carries data
/// get an ACK for it, the rest are answered at once.
@Suite struct DefaultT0DataInstructionTests {
    /// A card with nothing of its own: every answer comes from the protocol's defaults.
    struct PlainCard: VirtualCard {
        var kind: String { "plain" }
        var technology: ContactlessTechnology { .isoDepTypeA(ats: [0x05, 0x78, 0x80, 0x70, 0x02]) }
        var uid: [UInt8] { [] }
        mutating func powerOn() {}
        mutating func process(_ command: [UInt8]) -> [UInt8] { [0x90, 0x00] }
    }

    @Test func commandsWithDataTakeItAndOthersDoNot() {
        let card = PlainCard()
        // ISO/IEC 7816-4 §11: VERIFY, MANAGE SECURITY ENVIRONMENT, CHANGE REFERENCE DATA, PERFORM
        // SECURITY OPERATION, EXTERNAL and INTERNAL AUTHENTICATE, SELECT, ENVELOPE, UPDATE BINARY,
        // UPDATE RECORD, CREATE FILE.
        for ins: UInt8 in [0x20, 0x22, 0x24, 0x2A, 0x82, 0x88, 0xA4, 0xC2, 0xD6, 0xDC, 0xE0] {
            #expect(card.t0TakesData(header: [0x00, ins, 0x00, 0x00, 0x02]), "INS \(ins)")
        }
        // READ BINARY, READ RECORD, GET RESPONSE, GET CHALLENGE, GET DATA, and a proprietary one.
        for ins: UInt8 in [0xB0, 0xB2, 0xC0, 0x84, 0xCA, 0x5A] {
            #expect(!card.t0TakesData(header: [0x00, ins, 0x00, 0x00, 0x02]), "INS \(ins)")
        }
        #expect((0...255).filter { card.t0TakesData(header: [0x00, UInt8($0), 0, 0, 1]) }.count == 38)
        #expect(!card.t0TakesData(header: [0x00]))
    }
}
