import CardFlow
import CardFlowCCID
import CardFlowCCIDProtocol
import CardFlowSimulator
import Testing

/// Records every bulk-OUT message the driver sends, on top of the in-memory transport.
actor RecordingUSBTransport: USBTransport {
    let inner: InMemoryUSBTransport
    private(set) var sent: [[UInt8]] = []

    init(reader: VirtualCCIDReader) { inner = InMemoryUSBTransport(reader: reader) }

    func bulkOut(_ data: [UInt8], timeout: Duration) async throws(USBTransportError) {
        sent.append(data)
        try await inner.bulkOut(data, timeout: timeout)
    }
    func bulkIn(maxLength: Int, timeout: Duration) async throws(USBTransportError) -> [UInt8] {
        try await inner.bulkIn(maxLength: maxLength, timeout: timeout)
    }
    func interruptIn(maxLength: Int, timeout: Duration) async throws(USBTransportError) -> [UInt8] {
        try await inner.interruptIn(maxLength: maxLength, timeout: timeout)
    }
    func control(_ request: USBControlRequest, timeout: Duration) async throws(USBTransportError) -> [UInt8] {
        try await inner.control(request, timeout: timeout)
    }

    /// The XfrBlocks sent since the last call, as (wLevelParameter, data).
    func takeXfrBlocks() -> [Transfer] {
        defer { sent = [] }
        return sent.compactMap { bytes in
            guard let command = try? CCIDCommand(decoding: bytes),
                case .xfrBlock(_, let level, let data) = command.kind
            else { return nil }
            return Transfer(level: Int(level), data: data)
        }
    }

    struct Transfer: Hashable, CustomStringConvertible {
        let level: Int
        let data: [UInt8]
        var description: String { "level \(level): \(data.map { String($0, radix: 16) })" }
    }
}

/// Byte-exact PC_to_RDR_XfrBlock traffic of character-level exchanges: what goes out in each
/// message and how many bytes wLevelParameter asks back (CCID rev 1.1 §6.1.4), for T=0 by
/// procedure bytes and T=1 by prologue and LEN.
@Suite struct CharacterLevelFrameTests {
    typealias Transfer = RecordingUSBTransport.Transfer

    /// A character-level reader (dwFeatures 0x40: it negotiates parameters, so no PPS or
    /// SetParameters muddle the frames) with a card.
    static func setUp(
        _ contact: ContactInterface, behaviour: CharacterLineBehaviour = CharacterLineBehaviour(),
        maxMessageLength: UInt32 = 271, limit: Duration = .seconds(300), selectApplication: Bool = true
    )
        async throws -> (driver: CCIDDriver, transport: RecordingUSBTransport, atr: [UInt8])
    {
        var configuration = VirtualReaderConfiguration.level(.character, maxMessageLength: maxMessageLength)
        configuration.descriptor.protocols = [.t0, .t1]
        configuration.characterLine = behaviour
        let reader = VirtualCCIDReader(configuration: configuration)
        await reader.insert(ISO7816Card(seed: 1, contactInterface: contact))
        let transport = RecordingUSBTransport(reader: reader)
        var driverConfiguration = SimulatedReaderHarness.fastFailing
        driverConfiguration.exchangeTimeLimit = limit
        let driver = CCIDDriver(
            transport: transport, descriptor: configuration.descriptor, configuration: driverConfiguration)
        let atr = try await driver.powerOn()
        if selectApplication {
            // The files the tests read live in the card's application.
            _ = try await driver.transmit(select)
        }
        return (driver, transport, atr)
    }

    static let select: [UInt8] = [0x00, 0xA4, 0x04, 0x00, 0x07, 0xA0, 0x00, 0x00, 0x02, 0x47, 0x10, 0x01, 0x00]
    static let t0Card = ContactInterface(protocols: [0], ta1: nil)
    static let t1Card = ContactInterface(protocols: [1], ta1: nil)

    @Test func t0CaseTwoReadsAckAndFirstByteThenTheRestWithTheStatusWord() async throws {
        let (driver, transport, _) = try await Self.setUp(Self.t0Card)
        _ = await transport.takeXfrBlocks()
        #expect(try await driver.transmit([0x00, 0xB0, 0x81, 0x00, 0x04]) == [0, 1, 2, 3, 0x90, 0x00])
        // Header: ACK + first data byte are due (nothing left to send, so two bytes are bound to come).
        #expect(
            await transport.takeXfrBlocks() == [
                Transfer(level: 2, data: [0x00, 0xB0, 0x81, 0x00, 0x04]),
                Transfer(level: 5, data: []),
            ])
    }

    @Test func t0CaseThreeSendsDataAfterTheAck() async throws {
        let (driver, transport, _) = try await Self.setUp(Self.t0Card)
        _ = await transport.takeXfrBlocks()
        #expect(try await driver.transmit([0x00, 0xD6, 0x81, 0x00, 0x02, 0xAA, 0xBB]) == [0x90, 0x00])
        #expect(
            await transport.takeXfrBlocks() == [
                Transfer(level: 1, data: [0x00, 0xD6, 0x81, 0x00, 0x02]),
                Transfer(level: 2, data: [0xAA, 0xBB]),
            ])
    }

    @Test func t0CaseOneIsOneTransfer() async throws {
        let (driver, transport, _) = try await Self.setUp(Self.t0Card)
        _ = await transport.takeXfrBlocks()
        #expect(try await driver.transmit([0x00, 0xA4, 0x00, 0x0C]) == [0x90, 0x00])
        #expect(await transport.takeXfrBlocks() == [Transfer(level: 2, data: [0x00, 0xA4, 0x00, 0x0C, 0x00])])
    }

    @Test func t0UnknownInstructionIsRefusedBeforeAnyData() async throws {
        let (driver, transport, _) = try await Self.setUp(Self.t0Card)
        _ = await transport.takeXfrBlocks()
        // The card does not know INS F0: it answers 6D 00 at once instead of acknowledging.
        #expect(try await driver.transmit([0x00, 0xF0, 0x00, 0x00, 0x02, 0x01, 0x02]) == [0x6D, 0x00])
        // With data still to send, one byte at a time: SW1, then SW2; the data never goes out.
        #expect(
            await transport.takeXfrBlocks() == [
                Transfer(level: 1, data: [0x00, 0xF0, 0x00, 0x00, 0x02]),
                Transfer(level: 1, data: []),
            ])
        #expect(try await driver.transmit([0x00, 0xA4, 0x00, 0x0C]) == [0x90, 0x00])
    }

    @Test func t0CaseFourFollows61xxWithGetResponse() async throws {
        let (driver, transport, _) = try await Self.setUp(Self.t0Card)
        _ = await transport.takeXfrBlocks()
        let select = Self.select
        let fci = try await driver.transmit(select)
        #expect(fci.first == 0x6F && fci.suffix(2) == [0x90, 0x00])
        let frames = await transport.takeXfrBlocks()
        let fciLength = fci.count - 2
        #expect(
            frames == [
                Transfer(level: 1, data: Array(select[0..<5])),
                Transfer(level: 2, data: Array(select[5..<12])), // → 61 xx
                Transfer(level: 2, data: [0x00, 0xC0, 0x00, 0x00, UInt8(fciLength)]),
                Transfer(level: fciLength - 1 + 2, data: []),
            ], "\(frames)")
    }

    @Test func t0WrongLengthIsReissuedWith6CxxLength() async throws {
        let (driver, transport, _) = try await Self.setUp(Self.t0Card)
        _ = await transport.takeXfrBlocks()
        // EF 0101 holds 32 bytes: Le 256 gets 6C 20, then the same header with P3 = 20.
        #expect(
            try await driver.transmit([0x00, 0xB0, 0x81, 0x00, 0x00]) == (0..<32).map { UInt8($0) } + [0x62, 0x82])
        #expect(
            await transport.takeXfrBlocks() == [
                Transfer(level: 2, data: [0x00, 0xB0, 0x81, 0x00, 0x00]),
                Transfer(level: 2, data: [0x00, 0xB0, 0x81, 0x00, 0x20]),
                Transfer(level: 33, data: []),
            ])
    }

    @Test func t0AnswerOver256BytesIsReadInReaderSizedParts() async throws {
        // dwMaxCCIDMessageLength 138 (Winbond's): at most 128 bytes per XfrBlock either way.
        let (driver, transport, _) = try await Self.setUp(Self.t0Card, maxMessageLength: 138)
        _ = await transport.takeXfrBlocks()
        let answer = try await driver.transmit([0x00, 0xB0, 0x82, 0x00, 0x00])
        #expect(answer == (0..<256).map { UInt8($0 % 251) } + [0x90, 0x00])
        #expect(
            await transport.takeXfrBlocks() == [
                Transfer(level: 2, data: [0x00, 0xB0, 0x82, 0x00, 0x00]),
                Transfer(level: 128, data: []), Transfer(level: 128, data: []), Transfer(level: 1, data: []),
            ])
    }

    @Test func t0NullAndOneByteAtATimeProcedureBytes() async throws {
        let behaviour = CharacterLineBehaviour(nullBytes: 1, oneByteAtATime: true)
        let (driver, transport, _) = try await Self.setUp(Self.t0Card, behaviour: behaviour)
        _ = await transport.takeXfrBlocks()
        #expect(try await driver.transmit([0x00, 0xB0, 0x81, 0x00, 0x02]) == [0, 1, 0x90, 0x00])
        // Card: 60 4F 00 4F 01 90 00 (NULL, then ~INS before each byte).
        #expect(
            await transport.takeXfrBlocks() == [
                Transfer(level: 2, data: [0x00, 0xB0, 0x81, 0x00, 0x02]), // 60 4F
                Transfer(level: 3, data: []), // 00 4F 01
                Transfer(level: 2, data: []), // 90 00
            ])
        #expect(try await driver.transmit([0x00, 0xD6, 0x81, 0x00, 0x02, 0xAA, 0xBB]) == [0x90, 0x00])
        // Card: 60 29 (NULL, ~D6), takes AA, 29, takes BB, 60 90 00. While data is left to send,
        // one byte at a time: the card may be waiting for it.
        #expect(
            await transport.takeXfrBlocks() == [
                Transfer(level: 1, data: [0x00, 0xD6, 0x81, 0x00, 0x02]), // 60
                Transfer(level: 1, data: []), // 29
                Transfer(level: 1, data: [0xAA]), // 29
                Transfer(level: 2, data: [0xBB]), // 60 90
                Transfer(level: 1, data: []), // 00
            ])
    }

    @Test func t1BlocksAreReadAsTheShortestBlockThenTheRestOfLEN() async throws {
        let (driver, transport, _) = try await Self.setUp(Self.t1Card, selectApplication: false)
        // Power-on: S(IFS request) with IFSD 254 and the card's S(IFS response): first as many
        // bytes as the shortest block has (NAD PCB LEN LRC), then LEN = 1 more.
        #expect(
            await transport.takeXfrBlocks() == [
                Transfer(level: 4, data: [0x00, 0xC1, 0x01, 0xFE, 0x3E]),
                Transfer(level: 1, data: []),
            ])
        _ = try await driver.transmit(Self.select)
        _ = await transport.takeXfrBlocks()
        #expect(try await driver.transmit([0x00, 0xB0, 0x81, 0x00, 0x04]) == [0, 1, 2, 3, 0x90, 0x00])
        // The second I-block of the session (after SELECT): N(S) = 1.
        let block: [UInt8] = [0x00, 0x40, 0x05, 0x00, 0xB0, 0x81, 0x00, 0x04]
        #expect(
            await transport.takeXfrBlocks() == [
                Transfer(level: 4, data: block + [block.reduce(0, ^)]),
                Transfer(level: 6, data: []), // LEN 6 more: 4 data + SW1 SW2 + LRC, less the first INF byte
            ])
    }

    @Test func theCardsRBlocksComeInOneXfrBlock() async throws {
        // IFSC 16: a 45-byte command goes in three I-blocks; the card acknowledges the first two
        // with R-blocks, which have no INF, so the shortest block's 4 bytes are the whole block.
        let card = ContactInterface(protocols: [1], ta1: nil, ifsc: 16)
        let (driver, transport, _) = try await Self.setUp(card)
        _ = await transport.takeXfrBlocks()
        let answer = try await driver.transmit([0x00, 0xD6, 0x81, 0x00, 0x28] + [UInt8](repeating: 0x5A, count: 40))
        #expect(answer.count == 2)
        let frames = await transport.takeXfrBlocks()
        #expect(frames.map(\.level) == [4, 4, 4, 2], "\(frames)")
        #expect(frames.map(\.data.count) == [3 + 16 + 1, 3 + 16 + 1, 3 + 13 + 1, 0], "\(frames)")
    }

    @Test func ppsIsSentAndReadByteWiseWhenTheReaderLeavesItToTheHost() async throws {
        // dwFeatures 0: character level, no automatic negotiation, PPS or IFSD exchange.
        var configuration = VirtualReaderConfiguration.level(.character)
        configuration.descriptor.features = []
        configuration.descriptor.protocols = [.t0, .t1]
        let reader = VirtualCCIDReader(configuration: configuration)
        // T=0 is the card's default; the host prefers T=1, so it must ask for it with a PPS.
        await reader.insert(ISO7816Card(seed: 1, contactInterface: ContactInterface(protocols: [0, 1], ta1: nil)))
        let transport = RecordingUSBTransport(reader: reader)
        let driver = CCIDDriver(
            transport: transport, descriptor: configuration.descriptor,
            configuration: SimulatedReaderHarness.fastFailing)
        _ = try await driver.powerOn()
        #expect(await transport.sent.contains { $0.first == CCIDMessageType.setParameters.rawValue && $0[7] == 1 })
        let frames = await transport.takeXfrBlocks()
        #expect(
            Array(frames.prefix(2)) == [
                Transfer(level: 2, data: [0xFF, 0x01, 0xFE]), // → FF 01
                Transfer(level: 1, data: []), // → PCK FE
            ], "\(frames)")
        _ = try await driver.transmit(Self.select)
        #expect(try await driver.transmit([0x00, 0xB0, 0x81, 0x00, 0x02]) == [0, 1, 0x90, 0x00])
    }

    @Test func truncatedATRIsCompletedFromTheLine() async throws {
        let (_, transport, atr) = try await Self.setUp(
            Self.t1Card, behaviour: CharacterLineBehaviour(atrBytesInPowerOn: 3), selectApplication: false)
        #expect(atr == Self.t1Card.answerToReset)
        let frames = await transport.takeXfrBlocks()
        // 3B 8x 81 known: TD1 announces TD2 (1 more), then TA3 + 8 historical + TCK.
        #expect(Array(frames.prefix(2)) == [Transfer(level: 1, data: []), Transfer(level: 10, data: [])], "\(frames)")
    }

    // MARK: - Hostile cards and readers

    @Test func endlessNullEndsWithinTheExchangeTimeLimit() async throws {
        // 300 ms as the caller's limit, which binds this exchange alone: as the driver's exchange
        // time limit it also bound the power-on in setUp (several XfrBlocks at character level),
        // which a loaded machine can take longer than 300 ms for.
        let (driver, _, _) = try await Self.setUp(
            Self.t0Card, behaviour: CharacterLineBehaviour(endlessNull: true), selectApplication: false)
        let clock = ContinuousClock()
        let started = clock.now
        await #expect(throws: CCIDDriverError.exchangeTimeLimitExceeded(limit: .milliseconds(300), during: .xfrBlock)) {
            try await driver.transmit([0x00, 0xB0, 0x81, 0x00, 0x04], timeLimit: .milliseconds(300))
        }
        // It ends: the limit is checked before every XfrBlock (how soon after 300 ms is up to the
        // scheduler when the whole suite runs in parallel on two cores).
        #expect(clock.now - started < .seconds(60))
    }

    @Test func invalidProcedureByteIsATypedError() async throws {
        let (driver, _, _) = try await Self.setUp(
            Self.t0Card, behaviour: CharacterLineBehaviour(invalidProcedureByte: 0x42), selectApplication: false)
        await #expect(
            throws: CCIDDriverError.characterLevel(
                .unexpectedProcedureByte(0x42, instruction: 0xB0),
                command: [0x00, 0xB0, 0x81, 0x00, 0x04])
        ) {
            try await driver.transmit([0x00, 0xB0, 0x81, 0x00, 0x04])
        }
    }

    @Test func shortAnswerIsAMuteCardOrALengthError() async throws {
        let (driver, _, _) = try await Self.setUp(
            Self.t0Card, behaviour: CharacterLineBehaviour(dropsLastByte: true), selectApplication: false)
        await #expect(throws: CCIDDriverError.cardMute(during: .xfrBlock)) {
            try await driver.transmit([0x00, 0xA4, 0x00, 0x0C])
        }
        let (lax, _, _) = try await Self.setUp(
            Self.t0Card,
            behaviour: CharacterLineBehaviour(dropsLastByte: true, readerReturnsShortAnswers: true),
            selectApplication: false)
        await #expect(
            throws: CCIDDriverError.characterLevel(
                .answerLength(expected: 2, received: 1),
                command: [0x00, 0xA4, 0x00, 0x0C, 0x00])
        ) {
            try await lax.transmit([0x00, 0xA4, 0x00, 0x0C])
        }
    }

    @Test func muteCardIsATypedError() async throws {
        let (driver, _, _) = try await Self.setUp(
            Self.t0Card, behaviour: CharacterLineBehaviour(mute: true), selectApplication: false)
        await #expect(throws: CCIDDriverError.cardMute(during: .xfrBlock)) {
            try await driver.transmit([0x00, 0xB0, 0x81, 0x00, 0x04])
        }
        // A mute T=1 card: the IFSD exchange at power-on times out into T=1 error recovery, which gives up.
        await #expect(throws: CCIDDriverError.self) {
            _ = try await Self.setUp(
                Self.t1Card, behaviour: CharacterLineBehaviour(mute: true), selectApplication: false)
        }
    }

    @Test func instructionsT0CannotCarryAreRefusedBeforeSending() async throws {
        let (driver, transport, _) = try await Self.setUp(Self.t0Card)
        _ = await transport.takeXfrBlocks()
        await #expect(
            throws: CCIDDriverError.characterLevel(.invalidInstruction(0x60), command: [0x80, 0x60, 0x01, 0x00, 0x01])
        ) {
            try await driver.transmit([0x80, 0x60, 0x01, 0x00, 0x01])
        }
        // CLA FF (PC/SC part 3 GET DATA, which sessions send) would read as a PPS request.
        await #expect(
            throws: CCIDDriverError.characterLevel(.invalidClass(0xFF), command: [0xFF, 0xCA, 0x00, 0x00, 0x00])
        ) {
            try await driver.transmit([0xFF, 0xCA, 0x00, 0x00, 0x00])
        }
        #expect(await transport.takeXfrBlocks().isEmpty)
        // The card stays usable.
        #expect(try await driver.transmit([0x00, 0xA4, 0x00, 0x0C]) == [0x90, 0x00])
    }
}
