import Testing

@testable import CardFlowSimulator
@testable import CardFlowSimulatorCards

/// Per-state instruction acceptance (spec §2.2), class and length checks (§0.1, §2.5).
@Suite("TON card: states and lengths")
struct TONCardStateTests {
    typealias S = TONTestSession

    static let allInstructions: [UInt8] = [
        0xC1, 0xC2, 0x96, 0x91, 0x94, 0x90, 0x93, 0x95, 0x92, 0xBD, 0xA2, 0xA7, 0xA0, 0xA5, 0xA3,
        0xB0, 0xB1, 0xB2, 0xB3, 0xB4, 0xB5, 0xB6, 0xB7, 0xB8, 0xB9, 0xBA, 0xBB, 0xBC, 0xBE, 0xBF,
        0xE1, 0xE2, 0xE3, 0xE4, 0xD1, 0xD2, 0xD3, 0xD4, 0xD5, 0xD6, 0x00, 0x10, 0xCA, 0xFF,
    ]

    static let expected: [UInt8: Set<UInt8>] = [
        0x07: [0xC1, 0x91, 0x93, 0x94, 0x95, 0x96, 0xC2, 0x90],
        0x27: [0xC1, 0x93, 0x95, 0xC2, 0x92],
        0x17: [
            0xB1, 0xB2, 0xB3, 0xB4, 0xB5, 0xB6, 0xB7, 0xB8, 0xB9, 0xBA, 0xBB, 0xBC, 0xB0, 0xBD,
            0xA0, 0xA7, 0xA3, 0xA5, 0xA2, 0xD1, 0xD2, 0xD3, 0xD4, 0xD5, 0xD6, 0xC2, 0xC1,
        ],
        0x37: [
            0xB1, 0xB2, 0xE3, 0xE4, 0xE1, 0xE2, 0xBE, 0xBF, 0xB8, 0xB9, 0xBA, 0xBB, 0xBC, 0xB0, 0xBD,
            0xA0, 0xA7, 0xA3, 0xA5, 0xA2, 0xD1, 0xD2, 0xD3, 0xD4, 0xD5, 0xD6, 0xC2, 0xC1,
        ],
        0x47: [0xC1, 0xC2],
    ]

    /// A card in each state, with the TON applet selected.
    static func cards() -> [(UInt8, TONTestSession)] {
        var installed = S(card: .installed(seed: 1))
        installed.generateSeed()
        var waiting = S(card: SimulatedTONCard(seed: 2))
        waiting.generateSeed()
        var personalized = S(card: SimulatedTONCard(seed: 3))
        personalized.activate()
        var deleting = TONCardKeychainTests.withKeys([[1, 2, 3], [4, 5]], seed: 4)
        _ = deleting.protected(0xB7, payload: [0, 0], le: 2)
        var blocked = S(card: SimulatedTONCard(seed: 5))
        blocked.activate()
        for _ in 0..<20 { _ = blocked.protected(0xB8, le: 2, key: [UInt8](repeating: 0, count: 32)) }
        return [(0x07, installed), (0x27, waiting), (0x17, personalized), (0x37, deleting), (0x47, blocked)]
    }

    @Test func everyStateAcceptsExactlyItsInstructions() {
        for (state, original) in Self.cards() {
            var probe = original
            #expect(probe.state == state)
            for ins in Self.allInstructions {
                var session = original
                // A short probe: accepted instructions answer anything but 6D00 (mostly 6700).
                let sw = session.sw([0xB0, ins, 0x00, 0x00])
                let accepted = Self.expected[state]!.contains(ins)
                #expect(
                    (sw != 0x6D00) == accepted,
                    "state \(hexString([state])) INS \(hexString([ins])): \(String(sw, radix: 16))")
            }
        }
    }

    @Test func classOtherThanB0Gives6E00() {
        var session = S()
        session.activate()
        #expect(session.sw(bytes("00C1000001")) == 0x6E00)
        #expect(session.sw(bytes("80C1000001")) == 0x6E00)
        #expect(session.sw(bytes("80CB800005DFFF02810300")) == 0x6E00, "CoinManager command to the applet")
    }

    @Test func wrongLeGives6700() {
        var session = S()
        session.activate()
        for command in [
            "B0C1000000", "B0C1000002", "B0C10000", "B0C2000017", "B0C2000000", "B0BD00001F",
            "B0BD000000", "B0A7000000", "B093000020", "B0D6000002", "B0C100000100",
        ] {
            #expect(session.sw(bytes(command)) == (command == "B093000020" ? 0x6D00 : 0x6700), "\(command)")
        }
        #expect(session.send(bytes("B0C1000001AA01")) == ([0x17], 0x9000), "a data field is ignored, as in the applet")
        // Protected commands check Le after the HMAC.
        #expect(session.protected(0xB8, le: 0x00).sw == 0x6700)
        #expect(session.protected(0xB8).sw == 0x6700)
        #expect(session.protected(0xB8, le: 2) == ([0, 0], 0x9000))
        #expect(session.protected(0xBB, payload: [0, 0], le: 0x22).sw == 0x7F00)
        // Malformed length fields, extended APDUs.
        #expect(session.sw(bytes("B0C1")) == 0x6700)
        #expect(session.sw(bytes("B0C10000050102")) == 0x6700)
        #expect(session.sw(bytes("B0C100000001")) == 0x6700)
    }

    @Test func selectVariants() {
        var session = S()
        session.generateSeed()
        #expect(session.sw(S.selectTONWithLe) == 0x9000, "Android SELECT with Le 00")
        #expect(session.sw(bytes("00A404000D31313232333334343535363600")) == 0x9000, "full instance AID")
        #expect(session.sw(bytes("00A40400043131323200")) == 0x9000, "too short a prefix: forwarded, no-op")
        #expect(session.state == 0x27)
        #expect(session.sw(bytes("00A4040005A000000999")) == 0x9000, "unknown AID forwarded to the applet: no-op")
        #expect(session.send(bytes("00A4040000")).sw == 0x9000, "Android S_C: empty AID selects the CoinManager")
        #expect(session.send(S.getPINTLT) == ([0x0A], 0x9000))
        #expect(session.sw(bytes("00A4040005A000000999")) == 0x6A82, "unknown AID with the CoinManager selected")
        #expect(session.sw(S.getAppInfo) == 0x6E00, "TON command to the CoinManager")
        session.card.powerOn()
        #expect(session.sw(bytes("00A4040005A000000999")) == 0x6A82)
    }
}
