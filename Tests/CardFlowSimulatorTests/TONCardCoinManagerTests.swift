import Testing

@testable import CardFlowSimulator
@testable import CardFlowSimulatorCards

/// The CoinManager commands (spec §2.4).
@Suite("TON card: CoinManager")
struct TONCardCoinManagerTests {
    typealias S = TONTestSession

    static func get(_ tag: UInt8, swiftStyle: Bool = true) -> [UInt8] {
        [0x80, 0xCB, 0x80, 0x00, 0x05, 0xDF, 0xFF, 0x02, 0x81, tag] + (swiftStyle ? [0x00] : [])
    }

    @Test func selectAnswersTheRecordedFCI() {
        var session = S()
        let fci = session.send(S.selectCoinManager)
        #expect(fci.sw == 0x9000)
        #expect(
            fci.data
                == bytes(
                    "6f5c8408a000000151000000a550734a06072a864886fc6b01600c060a2a864886fc6b02020101630906072a864886fc6b03640b06092a864886fc6b040255650b06092b8510864864020103660c060a2b060104012a026e01029f6501ff"
                ))
    }

    @Test func getters() {
        var session = S()
        _ = session.send(S.selectCoinManager)
        let csn = session.send(Self.get(0x01))
        #expect(csn.sw == 0x9000 && csn.data.count == 16)
        #expect(session.send(Self.get(0x02)) == ([0x0A], 0x9000))
        #expect(session.send(Self.get(0x03)) == ([0x0A], 0x9000))
        #expect(session.send(Self.get(0x04)) == ([UInt8](repeating: 0, count: 32), 0x9000))
        #expect(session.send(Self.get(0x05)) == ([0xA5], 0x9000))
        #expect(session.send(Self.get(0x06)) == (bytes("4F0D31313232333334343535363600"), 0x9000))
        #expect(session.send(Self.get(0x09)) == ([0x10, 0x08], 0x9000))
        #expect(session.send(Self.get(0x46)).sw == 0x9000)
        #expect(session.send(bytes("80CB800005DFFE02814600")).sw == 0x9000, "Android's GET_AVAILABLE_MEMORY")
        #expect(session.send(Self.get(0x03, swiftStyle: false)) == ([0x0A], 0x9000), "no Le")
        #expect(session.sw(Self.get(0x07)) == 0x6A80)
        #expect(session.sw(bytes("80CB800004DFFF0281")) == 0x6A80)
        #expect(session.sw(bytes("80CB800005DFFF03810300")) == 0x6A80, "inner length")
        #expect(session.sw(bytes("80CA800005DFFF02810300")) == 0x6D00)
        #expect(session.sw(bytes("80CB000005DFFF02810300")) == 0x6A86)
        #expect(session.sw(bytes("B0C1000001")) == 0x6E00)
        #expect(SimulatedTONCard(seed: 1).csn != SimulatedTONCard(seed: 2).csn)
    }

    @Test func deviceLabel() {
        var session = S()
        _ = session.send(S.selectCoinManager)
        let label = (0..<32).map { UInt8($0) }
        #expect(session.sw(bytes("80CB800026DFFE2381 0420") + label) == 0x9000)
        #expect(session.send(Self.get(0x04)) == (label, 0x9000))
        #expect(session.sw(bytes("80CB800025DFFE2281 041F") + label.dropLast()) == 0x6A80)
    }

    @Test func pinChangesAndRetryCounter() {
        var session = S()
        _ = session.send(S.selectCoinManager)
        #expect(session.sw(S.generateSeed(pin: "1111")) == 0x9B01)
        #expect(session.send(Self.get(0x02)).data == [9])
        #expect(session.sw(S.changePIN(old: "1111", new: "2222")) == 0x9B01)
        #expect(session.send(Self.get(0x02)).data == [8])
        #expect(session.sw(S.changePIN(old: "5555", new: "12a4")) == 0x9B02)
        #expect(session.send(Self.get(0x02)).data == [10], "the old PIN was right")
        #expect(session.sw(S.changePIN(old: "5555", new: "2222")) == 0x9000)
        #expect(session.sw(S.generateSeed(pin: "5555")) == 0x9B01)
        #expect(session.sw(S.generateSeed(pin: "2222")) == 0x9000)
        #expect(session.send(Self.get(0x05)).data == [0x5A])
        #expect(session.sw(S.generateSeed(pin: "2222")) == 0x9B02)
        for _ in 0..<10 { _ = session.sw(S.changePIN(old: "0000", new: "1111")) }
        #expect(session.send(Self.get(0x02)).data == [0])
        #expect(session.sw(S.changePIN(old: "2222", new: "1111")) == 0x9B01, "no tries left")
        #expect(session.sw(S.resetWallet) == 0x9000)
        #expect(session.send(Self.get(0x02)).data == [10])
        #expect(session.send(Self.get(0x05)).data == [0xA5])
        #expect(session.sw(S.changePIN(old: "5555", new: "1111")) == 0x9000)
    }

    @Test func resetWalletKeepsAppletData() {
        var session = TONCardKeychainTests.withKeys([[1, 2, 3]])
        _ = session.sw(S.selectCoinManager)
        _ = session.sw(S.resetWallet)
        _ = session.sw(S.generateSeed(pin: "5555"))
        _ = session.sw(S.selectTON)
        #expect(session.state == 0x17)
        #expect(session.protected(0xB8, le: 2).data == [0, 1])
    }
}
