import Foundation
import Testing

@testable import CardFlowSimulator
@testable import CardFlowSimulatorCards

/// `sim:ton` in the simulator: card creation, `activation=PATH`, state files, the ATR.
@Suite("TON card: simulator wiring")
struct TONCardSimulatorTests {
    typealias S = TONTestSession

    @Test func simTonMakesAVectorACard() throws {
        let specification = try SimulatorSpecification(parsing: "sim:ton")
        let card = try #require(
            try SimulatorSetup.makeCard(.ton, seed: 5, specification: specification) as? SimulatedTONCard)
        var session = S(card: card)
        session.activate()
        #expect(session.state == 0x17)
        #expect(session.card.hmacKey == S.hmacKey)
    }

    @Test func activationFileIsUsedAndBadFilesAreErrors() throws {
        let path = "/tmp/ton-activation-\(UInt64.random(in: 0...UInt64.max)).json"
        defer { try? FileManager.default.removeItem(atPath: path) }
        let other = TONFactoryData(
            serialNumber: "111111111111111111111111", password: String(repeating: "01", count: 128),
            commonSecret: String(repeating: "02", count: 32), iv: String(repeating: "03", count: 16))
        try JSONEncoder().encode(other).write(to: URL(fileURLWithPath: path))
        let specification = try SimulatorSpecification(parsing: "sim:ton,activation=\(path)")
        let card = try #require(
            try SimulatorSetup.makeCard(.ton, seed: 5, specification: specification) as? SimulatedTONCard)
        var session = S(card: card)
        session.generateSeed()
        #expect(session.send(S.getSerialNumber).data == [UInt8](repeating: 1, count: 24))
        #expect(
            session.sw(S.verifyPassword([UInt8](repeating: 1, count: 128), iv: [UInt8](repeating: 3, count: 16)))
                == 0x9000)

        try Data("{}".utf8).write(to: URL(fileURLWithPath: path))
        #expect(throws: TONFactoryDataError.self) {
            _ = try SimulatorSetup.makeCard(.ton, seed: 5, specification: specification)
        }
    }

    @Test func setupLoadsAndSavesTheStateFile() async throws {
        let path = "/tmp/ton-setup-state-\(UInt64.random(in: 0...UInt64.max)).json"
        let store = CardStateStore(path: path)
        defer { try? store.remove() }
        var session = S.activated(seed: 77)
        _ = TONCardRecoveryDataTests.add([1, 2, 3], to: &session)
        try store.save(session.card)
        let setup = try await SimulatorSetup(
            specification: try SimulatorSpecification(parsing: "sim:ton,state=\(path)"))
        let inserted = try #require(await setup.readers[0].reader.lastKnownCard(slot: 0) as? SimulatedTONCard)
        #expect(inserted.recoveryData.data == [1, 2, 3])
        #expect(inserted.appletState == .personalized)
        try await setup.saveCardState()
        #expect(try store.load(SimulatedTONCard.self).recoveryData.isSet)
    }

    @Test func atrCarriesTheJavaCardHistoricalBytes() {
        let atr = ContactlessATR.atr(for: SimulatedTONCard(seed: 1).technology)
        #expect(Array(atr.prefix(4)) == [0x3B, 0x8A, 0x80, 0x01])
        #expect(Array(atr[4..<14]) == Array("JCOP41V221".utf8))
        #expect(SimulatedTONCard(seed: 1).uid.count == 7)
        #expect(SimulatedTONCard(seed: 1).uid != SimulatedTONCard(seed: 2).uid)
    }

    @Test func lengthErrorsOfTheActivationCommands() {
        var session = S()
        session.generateSeed()
        #expect(session.sw([0xB0, 0x92, 0x00, 0x00, 0x8F] + [UInt8](repeating: 0, count: 0x8F)) == 0x6700)
        #expect(session.sw(bytes("B09300001F")) == 0x6700)
        #expect(session.sw(bytes("B095000000")) == 0x6700)
        #expect(session.send(bytes("B09500000100 20")) == (S.h3, 0x9000), "data ignored")
        #expect(session.card.passwordFailures == 0, "length errors are not password failures")
        var installed = S(card: .installed(seed: 1))
        installed.generateSeed()
        #expect(installed.sw([0xB0, 0x91, 0x00, 0x00, 0x7F] + [UInt8](repeating: 0, count: 0x7F)) == 0x6700)
        #expect(installed.sw([0xB0, 0x94, 0x00, 0x00, 0x21] + [UInt8](repeating: 0, count: 0x21)) == 0x6700)
        #expect(installed.sw(bytes("B090000001 00")) == 0x4F01, "data ignored; nothing set yet")
    }
}
