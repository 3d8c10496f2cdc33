import CardFlow
import CardFlowCCID
import CardFlowCCIDProtocol
import CardFlowSimulator
import Logging
import Metrics
import Testing

/// The session's own exchange path (SessionChannel: CCID, tracing, metrics on the driver's
/// executor) must log and count exactly what the public channel chain does.
@Suite("CardSession exchange path: trace records and metrics as the channel chain's")
struct SessionChannelTests {
    /// A reader on a simulated ISO 7816 card, logging to `log` and measuring into `metrics`.
    static func reader(
        log: CapturedLog, metrics: any MetricsFactory, card: some VirtualCard = ISO7816Card(seed: 1)
    ) async -> (Reader, VirtualCCIDReader) {
        let virtual = VirtualCCIDReader(configuration: VirtualReaderConfiguration())
        await virtual.insert(card)
        let configuration = virtual.configuration
        let driver = CCIDDriver(transport: InMemoryUSBTransport(reader: virtual), descriptor: configuration.descriptor)
        let info = ReaderInfo(
            id: "sim:0", name: "Test Reader", vendorID: configuration.vendorID,
            productID: configuration.productID, descriptor: configuration.descriptor)
        return (Reader(info: info, driver: driver, logger: log.logger(), metricsFactory: metrics), virtual)
    }

    /// The public chain the session used to build, on its own simulated card.
    static func chain(
        log: CapturedLog, metrics: CapturingMetricsFactory,
        redaction: APDURedaction = .none
    ) async throws -> MetricsCardChannel {
        let virtual = VirtualCCIDReader(configuration: VirtualReaderConfiguration())
        await virtual.insert(ISO7816Card(seed: 1))
        let driver = CCIDDriver(
            transport: InMemoryUSBTransport(reader: virtual), descriptor: virtual.configuration.descriptor)
        _ = try await driver.powerOn()
        let traced = TracingCardChannel(
            wrapping: CCIDCardChannel(driver: driver),
            logger: log.logger(metadata: ["reader": "Test Reader"]), redaction: redaction)
        return MetricsCardChannel(wrapping: traced, readerName: "Test Reader", factory: metrics)
    }

    static let commands = [selectApp, readFirstFile, try! CommandAPDU(hex: "00B0990010")]

    @Test func traceRecordsAndMetricsMatchTheChannelChain() async throws {
        let sessionLog = CapturedLog()
        let sessionMetrics = CapturingMetricsFactory()
        let (reader, _) = await Self.reader(log: sessionLog, metrics: sessionMetrics)
        let chainLog = CapturedLog()
        let chainMetrics = CapturingMetricsFactory()
        let chain = try await Self.chain(log: chainLog, metrics: chainMetrics)

        let session = try await reader.connect()
        let identityRecords = sessionLog.all.count // the session's GET DATA UID
        var sessionAnswers: [ResponseAPDU] = []
        var chainAnswers: [ResponseAPDU] = []
        for command in Self.commands {
            sessionAnswers.append(try await session.transmit(command))
            chainAnswers.append(try await chain.transmit(command))
        }
        await session.close()

        #expect(sessionAnswers == chainAnswers)
        #expect(sessionAnswers[1].data == firstFileContents)
        let sessionRecords = Array(sessionLog.all.dropFirst(identityRecords).filter { $0.level == .trace })
        #expect(sessionRecords == chainLog.all)
        #expect(sessionRecords.count == 3 * Self.commands.count)
        #expect(sessionRecords.first?.message == ">>> Send apdu 00 A4 04 00 07 A0 00 00 02 47 10 01")
        #expect(sessionRecords.allSatisfy { $0.metadata["reader"] == "Test Reader" })

        // The session also sent GET DATA (UID) for its identity: one APDU more than the chain.
        let readerDimension = [("reader", "Test Reader")]
        #expect(
            sessionMetrics.counter("cardflow_apdus_sent", readerDimension) == chainMetrics.counter(
                "cardflow_apdus_sent", readerDimension) + 1)
        #expect(chainMetrics.counter("cardflow_apdus_sent", readerDimension) == Int64(Self.commands.count))
        #expect(sessionMetrics.timerValues("cardflow_apdu_duration", readerDimension).count == Self.commands.count + 1)
        let statusErrors = { (metrics: CapturingMetricsFactory) in
            metrics.counterTotals.filter { $0.key.hasPrefix("cardflow_apdu_status_errors") }
        }
        #expect(statusErrors(sessionMetrics) == statusErrors(chainMetrics))
        #expect(!statusErrors(chainMetrics).isEmpty) // the third command reads a file that is not there
    }

    @Test func tracingOffLogsNothingButStillCounts() async throws {
        let log = CapturedLog(level: .info)
        let metrics = CapturingMetricsFactory()
        let (reader, _) = await Self.reader(log: log, metrics: metrics)
        let answer = try await reader.withSession { session in
            _ = try await session.transmit(selectApp)
            return try await session.transmit(readFirstFile)
        }
        #expect(answer.data == firstFileContents)
        #expect(!log.all.contains { $0.level == .trace })
        // GET DATA, SELECT, READ BINARY
        #expect(metrics.counter("cardflow_apdus_sent", [("reader", "Test Reader")]) == 3)
    }

    /// `transmit` is nonisolated: tasks sending at once reach the driver without the session's
    /// executor in between, and the driver must still pair every answer with its own command.
    @Test func concurrentTransmitsEachGetTheirOwnAnswer() async throws {
        let (reader, virtual) = await Self.reader(log: CapturedLog(level: .info), metrics: CapturingMetricsFactory())
        try await reader.withSession { session in
            _ = try await session.transmit(selectApp)
            let before = await virtual.commandsReceived
            let answers = try await withThrowingTaskGroup(of: (Int, ResponseAPDU).self) { group in
                for offset in firstFileContents.indices {
                    group.addTask {
                        let read = try CommandAPDU(cla: 0x00, ins: 0xB0, p1: 0x81, p2: UInt8(offset), le: 1)
                        return (offset, try await session.transmit(read))
                    }
                }
                var answers: [Int: ResponseAPDU] = [:]
                for try await (offset, answer) in group { answers[offset] = answer }
                return answers
            }
            for offset in firstFileContents.indices {
                #expect(answers[offset]?.statusWord == .success)
                #expect(answers[offset]?.data == [firstFileContents[offset]], "offset \(offset)")
            }
            #expect(await virtual.commandsReceived - before == firstFileContents.count)
        }
    }

    @Test func tracingCanBeTurnedOnMidSession() async throws {
        let log = CapturedLog(level: .info)
        let metrics = CapturingMetricsFactory()
        let (reader, _) = await Self.reader(log: log, metrics: metrics)
        try await reader.withSession { session in
            _ = try await session.transmit(selectApp)
            #expect(log.all.isEmpty)
            log.logLevel = .trace
            _ = try await session.transmit(readFirstFile)
        }
        #expect(log.all.filter { $0.level == .trace }.map(\.message).first == ">>> Send apdu 00 B0 81 00 20")
    }

    @Test func sessionRedactionHidesBytesInTheTrace() async throws {
        let log = CapturedLog()
        let metrics = CapturingMetricsFactory()
        let (reader, _) = await Self.reader(log: log, metrics: metrics)
        try await reader.withSession { session in
            await session.addRedaction(
                APDURedaction { command in
                    command.ins == 0xB0 ? .init(responseData: [0..<4]) : .none
                })
            _ = try await session.transmit(selectApp)
            _ = try await session.transmit(readFirstFile)
        }
        let response = log.all.last { $0.message.hasPrefix("APDU Response:") }
        #expect(response?.message.hasPrefix("APDU Response: ** ** ** ** 04 05") == true)
        #expect(response?.metadata["apdu.redacted"] == "true")
    }

    /// A reader makes its sessions' metrics once: sessions one after another count into the same
    /// series. Each session still traces with its own redaction: a rule one session added (before
    /// its first traced APDU made its tracing channel) hides nothing in the next session.
    @Test func sessionsShareTheReadersMetricsButNotTheirRedaction() async throws {
        let log = CapturedLog()
        let metrics = CapturingMetricsFactory()
        let (reader, _) = await Self.reader(log: log, metrics: metrics)
        let hideRead = APDURedaction { command in command.ins == 0xB0 ? .init(responseData: [0..<4]) : .none }
        for redacted in [true, false, true] {
            try await reader.withSession { session in
                if redacted { await session.addRedaction(hideRead) }
                _ = try await session.transmit(selectApp)
                _ = try await session.transmit(readFirstFile)
            }
            let response = log.all.last { $0.message.hasPrefix("APDU Response:") }?.message ?? ""
            let expected = redacted ? "APDU Response: ** ** ** ** 04 05" : "APDU Response: 00 01 02 03"
            #expect(response.hasPrefix(expected), "\(response)")
        }
        // Each session: GET DATA (UID), SELECT, READ BINARY.
        let readerDimension = [("reader", "Test Reader")]
        #expect(metrics.counter("cardflow_apdus_sent", readerDimension) == 9)
        #expect(metrics.timerValues("cardflow_apdu_duration", readerDimension).count == 9)
    }

    @Test func aFailedExchangeIsLoggedCountedAndMarksTheCardLost() async throws {
        let log = CapturedLog()
        let metrics = CapturingMetricsFactory()
        let (reader, virtual) = await Self.reader(log: log, metrics: metrics)
        let session = try await reader.connect()
        await virtual.removeCard()
        await #expect(throws: (any Error).self) { try await session.transmit(readFirstFile) }
        #expect(log.all.contains { $0.message.hasPrefix("APDU exchange failed:") })
        #expect(metrics.counterTotals.contains { $0.key.hasPrefix("cardflow_apdu_transport_errors") && $0.value == 1 })
        await session.close()
        await #expect(throws: SessionError.sessionClosed) { try await session.transmit(readFirstFile) }
    }

    /// A card that answers every command with one byte: no status word.
    struct OneByteCard: VirtualCard {
        let kind = "test-one-byte"
        let technology: ContactlessTechnology = .desfireTypeA
        let uid: [UInt8] = [0x04, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06]
        mutating func powerOn() {}
        mutating func process(_ command: [UInt8]) -> [UInt8] { [0x90] }
    }

    @Test func anAnswerWithoutAStatusWordIsATypedErrorTracedAndCounted() async throws {
        let log = CapturedLog()
        let metrics = CapturingMetricsFactory()
        let (reader, _) = await Self.reader(log: log, metrics: metrics, card: OneByteCard())
        try await reader.withSession { session in
            await #expect(throws: CardChannelError.malformedResponse([0x90], instruction: 0xB0)) {
                try await session.transmit(readFirstFile)
            }
            // The session stays usable: the next exchange fails the same way, not differently.
            await #expect(throws: CardChannelError.malformedResponse([0x90], instruction: 0xA4)) {
                try await session.transmit(selectApp)
            }
        }
        #expect(
            log.all.contains {
                $0.message.hasPrefix("APDU exchange failed:") && $0.metadata["error.type"] == "CardChannelError"
            })
        #expect(
            metrics.counter(
                "cardflow_apdu_transport_errors", [("reader", "Test Reader"), ("error", "CardChannelError")]) == 2)
    }

    /// A session that measures nothing and traces nothing sends its APDUs straight to the driver
    /// (CardSession's inlined path). A GET RESPONSE traced after such APDUs may continue secret
    /// data, so its data must be hidden whole, every time: also after a traced exchange reset the
    /// carry-over, and after several untraced APDUs in a row (which skip the redaction's lock).
    @Test func untracedAPDUsStraightToTheDriverStillHideTheNextGetResponse() async throws {
        let log = CapturedLog(level: .info)
        let (reader, _) = await Self.reader(log: log, metrics: NOOPMetricsHandler.instance, card: APDUTestCard())
        let deferFour = try CommandAPDU(hex: "80500004") // 61 04: four pattern bytes wait
        let getResponse = try CommandAPDU(hex: "00C0000004")
        let noOperation = try CommandAPDU(hex: "80100000")
        try await reader.withSession { session in
            for untracedInARow in [1, 1, 3] {
                log.logLevel = .info
                for _ in 0..<untracedInARow {
                    #expect(try await session.transmit(deferFour).statusWord == StatusWord(sw1: 0x61, sw2: 0x04))
                }
                log.logLevel = .trace
                let traced = log.all.count
                let answer = try await session.transmit(getResponse)
                #expect(answer.data == [0, 1, 2, 3] && answer.statusWord == .success)
                #expect(
                    Array(log.messages.dropFirst(traced)) == [
                        ">>> Send apdu 00 C0 00 00 04", "SW1-SW2: 90, 00", "APDU Response: ** ** ** **",
                    ])
                // A traced exchange with nothing to carry over: the next round starts from "none".
                #expect(try await session.transmit(noOperation).statusWord == .success)
            }
        }
    }
}
