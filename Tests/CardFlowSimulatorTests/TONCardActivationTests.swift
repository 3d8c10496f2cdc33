import Foundation
import Testing

@testable import CardFlowSimulator
@testable import CardFlowSimulatorCards

/// Factory state, vector A activation (spec §1.3, §3, §8.1) and the activation password counter.
@Suite("TON card: activation")
struct TONCardActivationTests {
    typealias S = TONTestSession

    @Test func factoryCardHasNoSeedSoTheAppletSelectFailsWith6F02() {
        var session = S()
        #expect(session.card.kind == "ton")
        #expect(SimulatedTONCard.persistentKind == "ton")
        #expect(session.sw(bytes("B0C1000001")) == 0x6985, "nothing selected yet")
        #expect(session.sw(S.selectTON) == 0x6F02)
        #expect(session.send(S.getAppInfo).data == [0x27], "the applet is selected nevertheless")
        #expect(session.sw(S.selectCoinManager) == 0x9000)
        #expect(session.send(S.getRootKeyStatus).data == [0xA5])
    }

    @Test func vectorATurnOnWalletEndToEnd() {
        var session = S()
        // S_C, RESET_WALLET, GENERATE_SEED("5555")
        #expect(session.send(S.selectCoinManager).data.first == 0x6F)
        #expect(session.sw(S.resetWallet) == 0x9000)
        #expect(session.sw(S.generateSeed(pin: "5555")) == 0x9000)
        #expect(session.send(S.getRootKeyStatus).data == [0x5A])
        // S_T, AI, 95, 93, 92
        #expect(session.sw(S.selectTON) == 0x9000)
        #expect(session.send(S.getAppInfo) == ([0x27], 0x9000))
        #expect(session.send(bytes("B095000020")) == (S.h3, 0x9000))
        #expect(session.send(bytes("B093000020")) == (S.h2, 0x9000))
        #expect(session.send(S.serialNumberRequest) == (S.serialOnWire, 0x9000))
        #expect(session.sw(S.verifyPassword()) == 0x9000)
        // S_C, CHANGE_PIN(5555 → 5555); S_T, AI, SN, AI
        #expect(session.sw(S.selectCoinManager) == 0x9000)
        #expect(session.sw(S.changePIN(old: "5555", new: "5555")) == 0x9000)
        #expect(session.sw(S.selectTON) == 0x9000)
        #expect(session.send(S.getAppInfo) == ([0x17], 0x9000))
        #expect(session.send(S.getSerialNumber) == (S.serialOnWire, 0x9000))
        #expect(session.card.hmacKey == S.hmacKey, "K = HMAC-SHA256(SHA256(P1), CS)")
    }

    @Test func recordedVerifyPINWithWrongPINGives6F07ThenTheRightPINSucceeds() {
        var session = S()
        session.activate()
        // Section 8.1's recorded APDU: PIN "5558", sault EA57…, MAC under K.
        session.card.sault = bytes("EA579CD62F072B82DA55E9C780FCD0610F88F3FA1DD0858FEC1BB55D01A88473")
        let recorded = bytes(
            "B0A2000044 35353538 EA579CD62F072B82DA55E9C780FCD0610F88F3FA1DD0858FEC1BB55D01A88473"
                + "8A94113A2D8852AB7B18FFCB9424B66F952A665BF737BEB79F216EEFC3A2EE37")
        #expect(session.sw(recorded) == 0x6F07)
        #expect(session.card.pinFailures == 1)
        #expect(session.sw(recorded) == 0x8F01, "the sault was renewed: a replay fails")
        #expect(session.protected(0xA2, payload: Array("5555".utf8)).sw == 0x9000)
        #expect(session.card.pinFailures == 0)
    }

    @Test func activationWithANewPIN() {
        var session = S()
        session.activate()
        #expect(session.sw(S.selectCoinManager) == 0x9000)
        #expect(session.sw(S.changePIN(old: "5555", new: "1234")) == 0x9000)
        #expect(session.sw(S.selectTON) == 0x9000)
        #expect(session.protected(0xA2, payload: Array("5555".utf8)).sw == 0x6F07)
        #expect(session.protected(0xA2, payload: Array("1234".utf8)).sw == 0x9000)
    }

    @Test func wrongPasswordTwentyTimesBlocksForever() {
        var session = S()
        session.generateSeed()
        var wrong = S.password
        wrong[0] ^= 1
        for attempt in 1...19 {
            #expect(session.sw(S.verifyPassword(wrong)) == 0x5F00, "attempt \(attempt)")
        }
        #expect(session.state == 0x27)
        #expect(session.card.passwordFailures == 19)
        #expect(
            session.sw(S.verifyPassword(S.password, iv: [UInt8](repeating: 0, count: 16))) == 0x5F01,
            "right password, wrong IV: the 20th failure")
        #expect(session.state == 0x47)
        #expect(session.sw(S.verifyPassword()) == 0x6D00, "blocked: only AI and SN")
        #expect(session.send(S.getSerialNumber) == (S.serialOnWire, 0x9000))
        #expect(session.sw(S.getSault) == 0x6D00)
        session.card.powerOn()
        #expect(session.sw(S.selectTON) == 0x9000)
        #expect(session.state == 0x47, "blocked across power cycles")
    }

    @Test func passwordFailuresAreNeverReset() {
        var session = S()
        session.generateSeed()
        var wrong = S.password
        wrong[127] ^= 0x80
        #expect(session.sw(S.verifyPassword(wrong)) == 0x5F00)
        #expect(session.sw(S.verifyPassword()) == 0x9000)
        #expect(session.card.passwordFailures == 1)
    }

    @Test func factoryPersonalisationFromStateInstalled() {
        var session = S(card: .installed(seed: 3))
        session.generateSeed()
        #expect(session.state == 0x07)
        #expect(session.sw(S.getSerialNumber) == 0xA001)
        #expect(session.sw([0xB0, 0x90, 0x00, 0x00]) == 0x4F01, "nothing set yet")
        #expect(session.sw(bytes("B096000018") + [UInt8](repeating: 0x0A, count: 24)) == 0xA002)
        #expect(session.sw(bytes("B096000017") + [UInt8](repeating: 1, count: 23)) == 0x6700)
        #expect(session.sw(bytes("B096000018") + S.serialOnWire) == 0x9000)
        // B1 and ECS of vector A.
        let b1 = bytes(
            "7BF6D157F017189AE9904959878A851376BE01127582D675004790CFC194E6AC273D85F55B7050B08FC48F3142AA68974B"
                + "9765D0799BB5804F6FD4A4BF38686D8E1AE548E60603D32DD85C57DADB146CDE4CFD30D0321DCD5A2B8010760E70A93E"
                + "429FBC2A458FE84B63B35DB9902893E2C81CD53A2AA20E268A57D188F93D69")
        let ecs = bytes("71E872C73979904C17722CB2A5FA6B7A107DBA38924338F739A1C0E96D74BC33")
        #expect(session.sw([0xB0, 0x91, 0x00, 0x00, 0x80] + b1) == 0x9000)
        #expect(session.sw([0xB0, 0x90, 0x00, 0x00]) == 0x4F01, "ECS missing")
        #expect(session.sw([0xB0, 0x94, 0x00, 0x00, 0x20] + ecs) == 0x9000)
        #expect(session.send(bytes("B093000020")) == (S.h2, 0x9000))
        #expect(session.send(bytes("B095000020")) == (S.h3, 0x9000))
        #expect(session.sw([0xB0, 0x90, 0x00, 0x00]) == 0x9000)
        #expect(session.state == 0x27)
        #expect(session.sw(S.verifyPassword()) == 0x9000)
        #expect(session.state == 0x17)
    }

    @Test func factoryDataFileAndErrors() throws {
        let directory = "/tmp/ton-card-tests-\(UInt64.random(in: 0...UInt64.max))"
        try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let good = directory + "/good.json"
        let data = try JSONEncoder().encode(TONFactoryData.vectorA)
        try data.write(to: URL(fileURLWithPath: good))
        #expect(try TONFactoryData(contentsOfFile: good) == .vectorA)
        let json = String(decoding: data, as: UTF8.self)
        for key in ["serialNumber", "password", "commonSecret", "iv"] {
            #expect(json.contains("\"\(key)\""))
        }

        #expect(throws: TONFactoryDataError.self) { try TONFactoryData(contentsOfFile: directory + "/missing.json") }
        func write(_ text: String) throws -> String {
            let path = directory + "/bad.json"
            try Data(text.utf8).write(to: URL(fileURLWithPath: path))
            return path
        }
        let a = TONFactoryData.vectorA
        do {
            _ = try TONFactoryData(contentsOfFile: try write("{not json"))
            Issue.record("bad JSON accepted")
        } catch let error as TONFactoryDataError {
            guard case .invalidJSON = error else { Issue.record("\(error)"); return }
        }
        let cases: [(String, TONFactoryDataError)] = [
            (
                #"{"serialNumber":"12","password":"\#(a.password)","commonSecret":"\#(a.commonSecret)","iv":"\#(a.iv)"}"#,
                .badSerialNumber("12")
            ),
            (
                #"{"serialNumber":"\#(a.serialNumber)","password":"XY","commonSecret":"\#(a.commonSecret)","iv":"\#(a.iv)"}"#,
                .badHex(field: "password")
            ),
            (
                #"{"serialNumber":"\#(a.serialNumber)","password":"\#(a.password)","commonSecret":"00","iv":"\#(a.iv)"}"#,
                .wrongLength(field: "commonSecret", expected: 32, actual: 1)
            ),
            (
                #"{"serialNumber":"\#(a.serialNumber)","password":"\#(a.password)","commonSecret":"\#(a.commonSecret)","iv":"0011"}"#,
                .wrongLength(field: "iv", expected: 16, actual: 2)
            ),
        ]
        for (text, expected) in cases {
            #expect(throws: expected) { try TONFactoryData(contentsOfFile: try write(text)) }
        }
    }

    @Test func otherFactoryDataGivesOtherHashesAndSerialNumber() {
        let other = TONFactoryData(
            serialNumber: "000000000000000000000123", password: String(repeating: "AB", count: 128),
            commonSecret: String(repeating: "CD", count: 32), iv: String(repeating: "00", count: 16))
        var session = S(card: SimulatedTONCard(seed: 1, factoryData: other))
        session.generateSeed()
        #expect(session.send(S.getSerialNumber).data == [UInt8](repeating: 0, count: 21) + [1, 2, 3])
        #expect(session.sw(S.verifyPassword()) == 0x5F00)
        #expect(
            session.sw(S.verifyPassword([UInt8](repeating: 0xAB, count: 128), iv: [UInt8](repeating: 0, count: 16)))
                == 0x9000)
    }
}

extension TONTestSession {
    static let serialNumberRequest = getSerialNumber
}
