import Testing

@testable import CardFlowSimulator
@testable import CardFlowSimulatorCards

/// HMAC-protected APDUs, sault renewal (spec §3.4) and the PIN (§3.5).
@Suite("TON card: HMAC, sault and PIN")
struct TONCardProtectionTests {
    typealias S = TONTestSession
    static let wrongKey = [UInt8](repeating: 0x11, count: 32)

    @Test func getSaultDoesNotRenewButEveryComparisonDoes() {
        var session = S()
        session.activate()
        let first = session.send(S.getSault)
        #expect(first.sw == 0x9000 && first.data.count == 32)
        #expect(session.send(S.getSault).data == first.data)
        // Success renews.
        #expect(session.protected(0xB8, le: 2).sw == 0x9000)
        let second = session.send(S.getSault).data
        #expect(second != first.data)
        // Wrong sault: 8F01, renewed, the HMAC counter untouched.
        let stale = S.protectedAPDU(0xB8, payload: [], sault: first.data, le: 2)
        #expect(session.sw(stale) == 0x8F01)
        #expect(session.card.hmacFailures == 0)
        let third = session.send(S.getSault).data
        #expect(third != second)
        // Wrong MAC: renewed too.
        #expect(session.protected(0xB8, le: 2, key: Self.wrongKey).sw == 0x8F03)
        #expect(session.send(S.getSault).data != third)
        // A length error does not consume the sault.
        let before = session.send(S.getSault).data
        #expect(session.sw([0xB0, 0xB8, 0x00, 0x00, 0x03, 1, 2, 3, 0x02]) == 0x6700)
        #expect(session.send(S.getSault).data == before)
    }

    @Test func saultIsDeterministicFromTheSeed() {
        var a = S(card: SimulatedTONCard(seed: 9))
        var b = S(card: SimulatedTONCard(seed: 9))
        var c = S(card: SimulatedTONCard(seed: 10))
        a.activate(); b.activate(); c.activate()
        #expect(a.send(S.getSault).data == b.send(S.getSault).data)
        #expect(a.send(S.getSault).data != c.send(S.getSault).data)
    }

    @Test func twentyConsecutiveHMACFailuresBlock() {
        var session = S()
        session.activate()
        for attempt in 1...19 {
            #expect(session.protected(0xB8, le: 2, key: Self.wrongKey).sw == 0x8F03, "attempt \(attempt)")
        }
        #expect(session.card.hmacFailures == 19)
        #expect(session.protected(0xB8, le: 2).sw == 0x9000, "a success resets the counter")
        #expect(session.card.hmacFailures == 0)
        for _ in 1...19 { _ = session.protected(0xB8, le: 2, key: Self.wrongKey) }
        #expect(session.protected(0xB8, le: 2, key: Self.wrongKey).sw == 0x8F04)
        #expect(session.state == 0x47)
        #expect(session.sw(S.getSault) == 0x6D00)
        #expect(session.send(S.getSerialNumber).sw == 0x9000)
    }

    @Test func protectedPayloadTooLongGives4F03OrLengthErrors() {
        var session = S()
        session.activate()
        // VERIFY_PIN with a 5-byte payload: Lc ≠ 4 + 64.
        #expect(session.protected(0xA2, payload: Array("55555".utf8)).sw == 0x6700)
        #expect(session.sw([0xB0, 0xA2, 0x00, 0x00, 0x04] + Array("5555".utf8)) == 0x6700)
    }

    @Test func verifyPINTenWrongTimesExpiresAndResetWalletRecovers() {
        var session = S()
        session.activate()
        #expect(session.send(bytes("B0A7000020")).sw == 0x9000)
        for attempt in 1...9 {
            #expect(session.protected(0xA2, payload: Array("1111".utf8)).sw == 0x6F07, "attempt \(attempt)")
        }
        #expect(session.protected(0xA2, payload: Array("1111".utf8)).sw == 0x6F08, "the 10th")
        #expect(session.send(bytes("B0A7000020")).sw == 0x6F08)
        #expect(session.send(bytes("B0A000000130 20")).sw == 0x6F08)
        #expect(session.send(bytes("B0A7000000")).sw == 0x6F08, "checked before Le")
        #expect(session.send(bytes("B0A0000020")).sw == 0x6F08, "checked before Lc")
        #expect(
            session.protected(0xA2, payload: Array("5555".utf8)).sw == 0x6F08,
            "the CoinManager has no tries left: even the right PIN fails")
        #expect(session.sw(S.selectCoinManager) == 0x9000)
        #expect(session.send(S.getPINRTL) == ([0], 0x9000))
        #expect(session.sw(S.generateSeed(pin: "5555")) == 0x9B02, "a seed exists")
        #expect(session.sw(S.resetWallet) == 0x9000)
        #expect(session.send(S.getPINRTL) == ([10], 0x9000))
        #expect(session.sw(S.generateSeed(pin: "5555")) == 0x9000)
        #expect(session.sw(S.selectTON) == 0x9000)
        #expect(session.state == 0x17, "RESET_WALLET leaves the applet activated")
        #expect(session.send(bytes("B0A7000020")).sw == 0x6F08, "numPinFails is the applet's")
        #expect(session.protected(0xA2, payload: Array("5555".utf8)).sw == 0x9000)
        #expect(session.send(bytes("B0A7000020")).sw == 0x9000)
    }

    @Test func resetWalletMakesTheAppletSelectFailWith6F02() {
        var session = S.activated()
        #expect(session.sw(S.selectCoinManager) == 0x9000)
        #expect(session.sw(S.resetWallet) == 0x9000)
        #expect(session.sw(S.selectTON) == 0x6F02)
        #expect(session.send(bytes("B0A7000020")).sw == 0x6F03, "no seed: no key")
    }
}
