import CardFlowCCID
import CardFlowSimulator
import Testing

@testable import CardFlowCCIDProtocol

/// The driver keeps the last ATR's protocol selection (`ProtocolSelectionMemo`); a power-on must
/// still choose what a fresh driver would, whatever came before it on the same reader.
@Suite struct ProtocolSelectionMemoTests {
    /// What a driver that never saw another card chooses for `contact` under `preference`.
    static func freshChoice(_ contact: ContactInterface, _ preference: ProtocolPreference) async throws
        -> TransmissionProtocol?
    {
        let harness = await ContactProtocolEndToEndTests.harness(
            ContactProtocolEndToEndTests.contactTPDU, contact: contact, preference: preference)
        _ = try await harness.driver.powerOn()
        return await harness.driver.activeProtocols[0]
    }

    /// A SELECT and a 256-byte read of a file the exercises never write (the card keeps its
    /// files across power cycles, so the written one would differ on the second round).
    static func exchange(_ driver: CCIDDriver, name: String) async throws {
        let fci = try await driver.transmit(ContactProtocolEndToEndTests.selectAID)
        #expect(fci.suffix(2) == [0x90, 0x00] && fci.first == 0x6F, "\(name): \(fci)")
        #expect(
            try await driver.transmit([0x00, 0xB0, 0x82, 0x00, 0x00])
                == Array(ContactProtocolEndToEndTests.fileContent2.prefix(256)) + [0x90, 0x00], "\(name)")
    }

    @Test func eachPowerOnChoosesAsAFreshDriverWouldAcrossPreferencesAndCards() async throws {
        let dual = ContactInterface.dual(ta1: 0x13)
        let harness = await ContactProtocolEndToEndTests.harness(
            ContactProtocolEndToEndTests.contactTPDU, contact: dual)
        let preferences: [ProtocolPreference] = [.automatic, .automatic, .t1, .t1, .t0, .automatic]
        var chosen: Set<TransmissionProtocol> = []
        for (index, preference) in preferences.enumerated() {
            _ = try await harness.driver.powerOn(protocolPreference: preference)
            let active = try #require(await harness.driver.activeProtocols[0])
            #expect(active == (try await Self.freshChoice(dual, preference)), "power-on \(index), \(preference)")
            chosen.insert(active)
            try await Self.exchange(harness.driver, name: "\(index) \(preference)")
            try await harness.driver.powerOff()
        }
        // Both protocols were chosen at some point: a memo that ignored the preference would not.
        #expect(chosen == [.t0, .t1])

        // Another card (another ATR) on the same reader: T=1 only, then T=0 only, chosen afresh.
        for contact in [ContactInterface.t1Only(), .t0Only()] {
            _ = await harness.reader.removeCard()
            await harness.reader.insert(ISO7816Card(seed: 2, contactInterface: contact))
            let atr = try await harness.driver.powerOn(protocolPreference: .automatic)
            #expect(atr == contact.answerToReset)
            let active = await harness.driver.activeProtocols[0]
            #expect(active == (try await Self.freshChoice(contact, .automatic)))
            #expect(active == (contact.protocols == [1] ? .t1 : .t0))
            try await ContactProtocolEndToEndTests.exerciseAllCases(harness.driver, name: "\(contact.protocols)")
            try await harness.driver.powerOff()
        }
    }
}
