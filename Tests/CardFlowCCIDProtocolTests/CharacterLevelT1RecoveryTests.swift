import CardFlow
import CardFlowCCID
import CardFlowCCIDProtocol
import CardFlowSimulator
import Testing

/// T=1 error recovery at character level when a block from the card slips on the I/O line,
/// found by the character-level fault campaign: a spoiled LEN leaves the rest of the block on
/// the line, which the driver must read off before its R-block; and a spoiled block that passes
/// the LRC by chance must not come back as a response APDU.
@Suite struct CharacterLevelT1RecoveryTests {
    static func setUp(_ contact: ContactInterface = .t1Only(ta1: nil))
        async throws -> (driver: CCIDDriver, reader: VirtualCCIDReader, transport: RecordingUSBTransport)
    {
        var configuration = VirtualReaderConfiguration.level(.character)
        configuration.descriptor.protocols = [.t0, .t1]
        let reader = VirtualCCIDReader(configuration: configuration)
        await reader.insert(APDUTestCard(seed: 1, contactInterface: contact))
        let transport = RecordingUSBTransport(reader: reader)
        let driver = CCIDDriver(
            transport: transport, descriptor: configuration.descriptor,
            configuration: SimulatedReaderHarness.fastFailing)
        _ = try await driver.powerOn()
        return (driver, reader, transport)
    }

    static let pattern256: [UInt8] = [0x80, 0x20, 0x05, 0x00, 0x00]

    /// The card's first block of PATTERN 256 (IFSD 254: I(0, more) with 254 bytes) loses its
    /// NAD or its LEN, or its LEN changes to a shorter one or to the reserved FF. The driver reads
    /// a bad block, reads off the rest (a read for 259 bytes that ends with a mute card), asks
    /// again with an R-block and gets the whole answer. Before the fix it read the rest as the
    /// next blocks, sent R-blocks into a card still talking, and gave up after resynchronising.
    @Test(arguments: [
        CharacterLineFault.blockByteLost(at: 0), .blockByteLost(at: 2), .wrongLength(mask: 0x80),
        .wrongLength(mask: 0x01), .wrongLength(mask: 0xF0),
    ])
    func aBlockWithASpoiledLengthIsReadOffAndAskedForAgain(fault: CharacterLineFault) async throws {
        let (driver, reader, transport) = try await Self.setUp()
        _ = await transport.takeXfrBlocks()
        await reader.inject(.characterLine(fault))
        #expect(
            try await driver.transmit(Self.pattern256) == APDUTestCard.pattern(count: 256, start: 5) + [0x90, 0x00])
        let transfers = await transport.takeXfrBlocks()
        #expect(transfers.contains(RecordingUSBTransport.Transfer(level: 259, data: [])), "\(transfers)")
        // R(N(R) 0) with an error code: the block is asked for again.
        #expect(
            transfers.contains { $0.data.count == 4 && $0.data[1] & 0xEC == 0x80 && $0.data[1] & 0x03 != 0 },
            "\(transfers)")
    }

    /// A lost LEN turns the card's answer to RECEIPT (after SINK of 64 bytes: 00 40, then the
    /// checksum and 90 00) in its I-block N(S) 1 (NAD 00, PCB 40) into `00 40 00 | 40 …`: an
    /// empty I-block whose LRC (00 ⊕ 40 ⊕ 00 = 40) checks. T=1 cannot tell; the driver must not
    /// return those zero bytes as a response, and the next command must work.
    @Test func anEmptyBlockThatPassesTheLRCIsNoResponse() async throws {
        let (driver, reader, _) = try await Self.setUp()
        let sink: [UInt8] = [0x80, 0x30, 0x00, 0x00, 0x40] + (0..<64).map { UInt8($0) }
        let receipt: [UInt8] = [0x80, 0x32, 0x00, 0x00, 0x04]
        #expect(try await driver.transmit(sink) == [0x90, 0x00])
        await reader.inject(.characterLine(.blockByteLost(at: 2)))
        await #expect(throws: CCIDDriverError.responseTooShort(length: 0)) { try await driver.transmit(receipt) }

        let clean = try await Self.setUp()
        _ = try await clean.driver.transmit(sink)
        let expected = try await clean.driver.transmit(receipt)
        #expect(expected.prefix(2) == [0x00, 0x40] && expected.count == 6)
        #expect(try await driver.transmit(receipt) == expected)
    }
}
