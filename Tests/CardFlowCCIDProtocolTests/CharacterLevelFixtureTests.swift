import CardFlow
import CardFlowCCID
import CardFlowCCIDProtocol
import CardFlowSimulator
import Testing

/// Every character-level reader of the fixture corpus, simulated, with a T=0 and a T=1 contact
/// card wherever its dwProtocols allow: protocol selection (PPS and SetParameters where the
/// reader leaves them to the host), the four APDU cases, 61xx and 6Cxx answers and 256-byte
/// answers, all through procedure bytes or T=1 blocks driven byte by byte.
@Suite struct CharacterLevelFixtureTests {
    static func characterReaders() throws -> [(name: String, configuration: VirtualReaderConfiguration)] {
        try ContactProtocolEndToEndTests.fixtureReaders().filter {
            $0.configuration.descriptor.exchangeLevel == .character
        }
    }

    @Test func theCorpusHasSixCharacterLevelInterfaces() throws {
        let names = try Self.characterReaders().map(\.name)
        #expect(names.count == 6, "\(names)")
    }

    @Test func everyCharacterLevelProfileWithT0AndT1Cards() async throws {
        var exercised: [String] = []
        for reader in try Self.characterReaders() {
            let descriptor = reader.configuration.descriptor
            for (protocolNumber, flag) in [(UInt8(0), CCIDProtocols.t0), (1, .t1)]
            where descriptor.protocols.contains(flag) {
                let name = "\(reader.name) T=\(protocolNumber)"
                let contact = ContactInterface(protocols: [protocolNumber], ta1: 0x96)
                let harness = await ContactProtocolEndToEndTests.harness(reader.configuration, contact: contact)
                let atr = try await harness.driver.powerOn()
                #expect(atr == contact.answerToReset, "\(name)")
                #expect(
                    try await harness.driver.transmit(ContactProtocolEndToEndTests.selectAID).first == 0x6F, "\(name)")
                try await ContactProtocolEndToEndTests.exerciseAllCases(harness.driver, name: name)

                // 61xx after a case 3 command is left to the application (it has no Le to fetch for).
                let test = await SimulatedReaderHarness(
                    reader.configuration, card: APDUTestCard(contactInterface: contact),
                    driverConfiguration: SimulatedReaderHarness.fastFailing)
                _ = try await test.driver.powerOn()
                #expect(
                    try await test.driver.transmit([0x80, 0x50, 0x00, 0x00, 0x04, 1, 2, 3, 4]) == [0x61, 0x04],
                    "\(name)")
                #expect(
                    try await test.driver.transmit([0x00, 0xC0, 0x00, 0x00, 0x04]) == [4, 3, 2, 1, 0x90, 0x00],
                    "\(name)")
                // Case 3 with 255 bytes, case 4 with 255 bytes each way (T=1), and a 256-byte PATTERN.
                let data = (0..<255).map { UInt8($0) }
                #expect(
                    try await test.driver.transmit([0x80, 0x30, 0x00, 0x00, 0xFF] + data) == [0x90, 0x00], "\(name)")
                let receipt = try await test.driver.transmit([0x80, 0x32, 0x00, 0x00, 0x04])
                #expect(receipt.prefix(2) == [0x00, 0xFF] && receipt.suffix(2) == [0x90, 0x00], "\(name): \(receipt)")
                if protocolNumber == 1 {
                    // Over T=0 a case 4 command travels as case 3 (ISO/IEC 7816-3 §12.2.4), which this
                    // card's REVERSE refuses; over T=1 it goes whole, chained both ways.
                    let reversed = try await test.driver.transmit([0x80, 0x40, 0x00, 0x00, 0xFF] + data + [0x00])
                    #expect(reversed == data.reversed() + [0x90, 0x00], "\(name): \(reversed.count) bytes")
                }
                #expect(
                    try await test.driver.transmit([0x80, 0x20, 0x00, 0x00, 0x00])
                        == APDUTestCard.pattern(count: 256, start: 0) + [0x90, 0x00], "\(name)")
                exercised.append(name)
            }
        }
        // 6 interfaces; those offering both protocols run twice.
        #expect(exercised.count == 9, "\(exercised)")
    }
}
