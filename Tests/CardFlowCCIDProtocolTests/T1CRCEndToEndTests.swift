import CardFlow
import CardFlowCCID
import CardFlowCCIDProtocol
import CardFlowSimulator
import Testing

/// A T=1 card whose ATR announces CRC (TC3 = 01) behind simulated TPDU and character-level
/// readers: every block carries the two-byte CRC both ways. The card's T=1 endpoint has its own
/// CRC code and refuses blocks of any other length, so an exchange only completes when the
/// driver frames, reads and checks CRC blocks; a TPDU reader also frames the card's blocks by
/// the EDC SetParameters named.
@Suite struct T1CRCEndToEndTests {
    static let crcCard = ContactInterface(protocols: [1], ta1: 0x96, errorDetection: .crc)

    /// Readers of one exchange level: the simulator's own (with and without reader-side
    /// parameter negotiation) and the fixture profiles offering T=1 (a sample at TPDU level,
    /// every one at character level).
    static func readers(_ level: CCIDExchangeLevel) throws -> [(
        name: String, configuration: VirtualReaderConfiguration
    )] {
        var own = VirtualReaderConfiguration.level(level)
        own.descriptor.protocols = [.t0, .t1]
        var hostNegotiates = own
        hostNegotiates.descriptor.features.remove(.automaticParameterNegotiation)
        let fixtures = try ContactProtocolEndToEndTests.fixtureReaders().filter { reader in
            let descriptor = reader.configuration.descriptor
            guard descriptor.exchangeLevel == level, descriptor.protocols.contains(.t1) else { return false }
            return level == .character
                || ContactProtocolEndToEndTests.tpduSample.contains { reader.name.hasPrefix($0 + "#") }
        }
        return [("simulator \(level)", own), ("simulator \(level), host negotiates", hostNegotiates)] + fixtures
    }

    static func recordingDriver(_ configuration: VirtualReaderConfiguration, card: any VirtualCard)
        async -> (driver: CCIDDriver, reader: VirtualCCIDReader, transport: RecordingUSBTransport)
    {
        let reader = VirtualCCIDReader(configuration: configuration)
        await reader.insert(card)
        let transport = RecordingUSBTransport(reader: reader)
        let driver = CCIDDriver(
            transport: transport, descriptor: configuration.descriptor,
            configuration: SimulatedReaderHarness.fastFailing)
        return (driver, reader, transport)
    }

    @Test(arguments: [CCIDExchangeLevel.tpdu, .character])
    func fourCasesAndLongAnswersWithACRCCard(level: CCIDExchangeLevel) async throws {
        let readers = try Self.readers(level)
        #expect(readers.count >= 4, "\(readers.map(\.name))")
        for reader in readers {
            let name = reader.name
            let harness = await ContactProtocolEndToEndTests.harness(reader.configuration, contact: Self.crcCard)
            let atr = try await harness.driver.powerOn()
            #expect(atr == Self.crcCard.answerToReset, "\(name)")
            #expect(try AnswerToReset(bytes: atr).t1UsesCRC, "\(name)")
            #expect(await harness.driver.activeProtocol() == .t1, "\(name)")
            try await ContactProtocolEndToEndTests.exerciseAllCases(harness.driver, name: name)

            let test = await SimulatedReaderHarness(
                reader.configuration, card: APDUTestCard(contactInterface: Self.crcCard),
                driverConfiguration: SimulatedReaderHarness.fastFailing)
            _ = try await test.driver.powerOn()
            let data = (0..<255).map { UInt8($0) }
            #expect(try await test.driver.transmit([0x80, 0x30, 0x00, 0x00, 0xFF] + data) == [0x90, 0x00], "\(name)")
            let reversed = try await test.driver.transmit([0x80, 0x40, 0x00, 0x00, 0xFF] + data + [0x00])
            #expect(reversed == data.reversed() + [0x90, 0x00], "\(name): \(reversed.count) bytes")
            #expect(
                try await test.driver.transmit([0x80, 0x20, 0x00, 0x00, 0x00])
                    == APDUTestCard.pattern(count: 256, start: 0) + [0x90, 0x00], "\(name)")
        }
    }

    @Test(arguments: [CCIDExchangeLevel.tpdu, .character])
    func theIFSDExchangeCarriesTheCRC(level: CCIDExchangeLevel) async throws {
        var configuration = VirtualReaderConfiguration.level(level)
        configuration.descriptor.protocols = [.t0, .t1]
        let (driver, _, transport) = await Self.recordingDriver(
            configuration, card: ISO7816Card(seed: 1, contactInterface: Self.crcCard))
        _ = try await driver.powerOn()
        // S(IFS request 254): 00 C1 01 FE and its CRC-16/MCRF4XX (reflected 8408, preset FFFF,
        // no final XOR), high byte first: 54 4E. The card's S(IFS response) 00 E1 01 FE ends in 57 75.
        let request: [UInt8] = [0x00, 0xC1, 0x01, 0xFE, 0x54, 0x4E]
        // SetParameters says T=1 with CRC (bmTCCKST1 bit 0); a reader that negotiates itself
        // (dwFeatures 0x40, the simulator's character-level one) gets none.
        let setParameters = await transport.sent.filter { $0.first == CCIDMessageType.setParameters.rawValue }
        #expect(setParameters.count == (level == .tpdu ? 1 : 0), "\(setParameters)")
        #expect(setParameters.allSatisfy { $0[7] == 1 && $0[11] & 0x01 == 0x01 }, "\(setParameters)")
        let frames = await transport.takeXfrBlocks()
        if level == .character {
            // The shortest block (NAD PCB LEN and the two CRC bytes), then the LEN bytes it
            // leaves: 00 E1 01 FE 57, then 75.
            #expect(
                frames == [
                    RecordingUSBTransport.Transfer(level: 5, data: request),
                    RecordingUSBTransport.Transfer(level: 1, data: []),
                ], "\(frames)")
        } else {
            // The PPS for T=1 at TA1's speed (FF 11 96 PCK), then the block whole.
            #expect(frames.map(\.data) == [[0xFF, 0x11, 0x96, 0x78], request], "\(frames)")
        }
    }

    @Test(arguments: [CCIDExchangeLevel.tpdu, .character])
    func chainingBothWaysWithASmallIFSC(level: CCIDExchangeLevel) async throws {
        var configuration = VirtualReaderConfiguration.level(level)
        configuration.descriptor.protocols = [.t0, .t1]
        configuration.descriptor.maxIFSD = 24
        let contact = ContactInterface(protocols: [1], ta1: 0x96, ifsc: 16, errorDetection: .crc)
        let (driver, _, transport) = await Self.recordingDriver(
            configuration, card: APDUTestCard(contactInterface: contact))
        _ = try await driver.powerOn()
        _ = await transport.takeXfrBlocks()
        let data = (0..<255).map { UInt8(truncatingIfNeeded: $0 * 3) }
        let reversed = try await driver.transmit([0x80, 0x40, 0x00, 0x00, 0xFF] + data + [0x00])
        #expect(reversed == data.reversed() + [0x90, 0x00])
        // Host blocks go out whole in the first XfrBlock of each block exchange.
        let blocks = await transport.takeXfrBlocks().map(\.data).filter { $0.count >= 5 }
        let chainedInformation = blocks.filter { $0[1] & 0x80 == 0 && $0[1] & 0x20 != 0 }
        let acknowledgements = blocks.filter { $0[1] & 0xEF == 0x80 }
        // 261 command bytes in 16-byte blocks: 16 chained I-blocks and a last one; 257 answer
        // bytes in 24-byte blocks: 10 R-blocks asking for the next one.
        #expect(chainedInformation.count == 16, "\(blocks.count) blocks")
        #expect(chainedInformation.allSatisfy { $0[2] == 16 && $0.count == 3 + 16 + 2 })
        #expect(acknowledgements.count == 10)
        #expect(acknowledgements.allSatisfy { $0.count == 3 + 2 })
    }

    @Test(arguments: [CCIDExchangeLevel.tpdu, .character])
    func aCorruptedCRCFromTheCardGetsAnRBlockAndTheExchangeRecovers(level: CCIDExchangeLevel) async throws {
        var configuration = VirtualReaderConfiguration.level(level)
        configuration.descriptor.protocols = [.t0, .t1]
        let (driver, reader, transport) = await Self.recordingDriver(
            configuration, card: ISO7816Card(seed: 1, contactInterface: Self.crcCard))
        _ = try await driver.powerOn()
        #expect(try await driver.transmit(ContactProtocolEndToEndTests.selectAID).first == 0x6F)
        _ = await transport.takeXfrBlocks()
        // The card's answer to the next I-block has its second CRC byte flipped.
        await reader.inject(.corruptT1Block)
        #expect(
            try await driver.transmit([0x00, 0xB0, 0x81, 0x00, 0x20]) == (0..<32).map { UInt8($0) } + [0x90, 0x00])
        let blocks = await transport.takeXfrBlocks().map(\.data).filter { !$0.isEmpty }
        // The I-block (N(S) 1, the second of the session), then R(N(R) 1, EDC error): PCB
        // 1001 0001 = 91, LEN 0 and two CRC bytes; the card resends its block.
        #expect(blocks.count == 2, "\(blocks)")
        #expect(blocks.last.map { Array($0.prefix(3)) } == [0x00, 0x91, 0x00], "\(blocks)")
        #expect(blocks.last?.count == 5)
        #expect(try await driver.transmit([0x00, 0xA4, 0x00, 0x0C]) == [0x90, 0x00])
    }
}
