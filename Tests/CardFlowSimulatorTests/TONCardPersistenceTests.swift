import Foundation
import Testing

@testable import CardFlowSimulator
@testable import CardFlowSimulatorCards

/// Saving and loading through ``CardStateStore``, and robustness against arbitrary bytes.
@Suite("TON card: persistence and fuzzing")
struct TONCardPersistenceTests {
    typealias S = TONTestSession

    static func temporaryPath() -> String {
        "/tmp/ton-card-state-\(UInt64.random(in: 0...UInt64.max)).json"
    }

    @Test func saveAndLoadKeepEverythingPersistent() throws {
        var session = TONCardKeychainTests.withKeys([[1, 2, 3], Array(repeating: 7, count: 300)])
        _ = TONCardRecoveryDataTests.add([4, 5, 6], to: &session)
        _ = session.protected(0xA2, payload: Array("1111".utf8)) // one PIN failure
        _ = session.protected(0xB7, payload: [0, 0], le: 2) // mid-deletion: chunks moved, record not
        for _ in 0..<3 { _ = session.protected(0xBE, le: 1) }
        _ = session.protected(0xB8, le: 2, key: [UInt8](repeating: 0, count: 32)) // one HMAC failure
        let path = Self.temporaryPath()
        let store = CardStateStore(path: path)
        defer { try? store.remove() }
        try store.save(session.card)
        #expect(try store.storedKind() == "ton")
        var loaded = try store.load(SimulatedTONCard.self)
        var original = session.card
        original.powerOn()
        loaded.powerOn()
        #expect(loaded == original)
        var resumed = S(card: loaded)
        _ = resumed.sw(S.selectTON)
        #expect(resumed.state == 0x37)
        #expect(resumed.card.pinFailures == 1 && resumed.card.hmacFailures == 1)
        #expect(resumed.protected(0xBF, le: 1) == ([1], 0x9000))
        #expect(resumed.protected(0xB8, le: 2).data == [0, 1])
        #expect(resumed.send(bytes("B0D4000002")).data == [0, 3])
        #expect(resumed.send(bytes("B0A7000020")).data == session.send(bytes("B0A7000020")).data, "same seed")
        // Volatile: the verified PIN did not survive.
        #expect(resumed.protected(0xA5, payload: [0, 1, 1], le: 0x40).sw == 0x6F04)
        // Compact file: no 32 KiB of zeros.
        let size = try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int ?? 0
        #expect(size < 8000)
    }

    @Test func corruptStatesAreRejected() throws {
        let path = Self.temporaryPath()
        let store = CardStateStore(path: path)
        defer { try? store.remove() }
        let session = TONCardKeychainTests.withKeys([[1, 2, 3]])
        try store.save(session.card)
        let original = try Data(contentsOf: URL(fileURLWithPath: path))
        let mutations: [(String, Any, Bool)] = [
            ("sault", "00", false),
            ("offsets", [32766], true),
            ("macs", ["00"], true),
            ("pinTriesRemaining", 11, false),
            ("chunkCounter", Int.max, true),
            ("serialNumber", "0A" + String(repeating: "00", count: 23), false),
            ("store", "XYZ", true),
        ]
        for (key, value, inKeychain) in mutations {
            var root = try #require(try JSONSerialization.jsonObject(with: original) as? [String: Any])
            var card = try #require(root["card"] as? [String: Any])
            if inKeychain {
                var keychain = try #require(card["keychain"] as? [String: Any])
                keychain[key] = value
                card["keychain"] = keychain
            } else {
                card[key] = value
            }
            root["card"] = card
            try JSONSerialization.data(withJSONObject: root).write(to: URL(fileURLWithPath: path))
            #expect(throws: CardStateError.self, "\(key)") { try store.load(SimulatedTONCard.self) }
        }
    }

    @Test func randomBytesNeverTrap() {
        var generator = SeededRandom(seed: 0x70C4)
        let prefixes: [[UInt8]] = [
            [0xB0], [0x80, 0xCB, 0x80, 0x00], [0x00, 0xA4, 0x04, 0x00], [0xB0, 0xB4], [0xB0, 0xA3],
        ]
        for start in [S.activated(seed: 1), TONCardKeychainTests.withKeys([[1], [2, 3]], seed: 2)]
            + TONCardStateTests.cards().map(\.1)
        {
            var session = start
            for round in 0..<4000 {
                var command: [UInt8]
                if round % 3 == 0 {
                    command = (0..<Int.random(in: 0...300, using: &generator)).map { _ in
                        UInt8.random(in: 0...255, using: &generator)
                    }
                } else {
                    let prefix = prefixes[Int.random(in: 0..<prefixes.count, using: &generator)]
                    var body = (0..<Int.random(in: 0...6, using: &generator)).map { _ in
                        UInt8.random(in: 0...255, using: &generator)
                    }
                    if round % 2 == 0 {
                        let data = (0..<Int.random(in: 0...255, using: &generator)).map { _ in
                            UInt8.random(in: 0...255, using: &generator)
                        }
                        body = Array(body.prefix(3 - min(3, prefix.count - 1))) + [UInt8(data.count)] + data
                    }
                    command = prefix + body
                    if round % 5 == 0, command.count > 1 {
                        command[1] = [0xB2, 0xBE, 0xBF, 0xD2, 0xA0].randomElement(using: &generator)!
                    }
                }
                let response = session.card.process(command)
                #expect(response.count >= 2)
                if round % 500 == 0 { session.card.powerOn() }
            }
        }
    }
}
