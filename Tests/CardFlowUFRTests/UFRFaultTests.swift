import CardFlow
import CardFlowSimulatorCards
import CardFlowSimulatorUFR
import Testing

@testable import CardFlowUFR

/// Lost, duplicated and reordered datagrams, a card lifted mid-exchange, cancellation mid-APDU
/// and a hostile reader: each ends in the right answer or a typed error within a deadline.
/// Gates in the simulator order the events; nothing sleeps.
@Suite("uFR faults", .timeLimit(.minutes(1)))
struct UFRFaultTests {
    static func count(_ code: UInt8, in online: SimulatedUFROnline) async -> Int {
        await online.reader.commandLog.filter { $0 == code }.count
    }

    @Test("UDP: a lost answer to a read-only command is asked again")
    func lostReadOnlyAnswer() async throws {
        let online = try await UFRTestSupport.online()
        let device = try await UFRTestSupport.device(online, .udp)
        var faults = UFRDatagramFaults()
        faults.dropOutgoing = 1
        await online.setDatagramFaults(faults)
        #expect(try await device.presence() == .present)
        #expect(await Self.count(0x2C, in: online) == 2, "GET_CARD_ID_EX sent again once")
        await online.stop()
    }

    @Test("UDP: a lost command is sent again; a duplicated or late answer is not taken for the next one")
    func lostCommandAndStaleAnswers() async throws {
        let online = try await UFRTestSupport.online()
        let device = try await UFRTestSupport.device(online, .udp)
        var faults = UFRDatagramFaults()
        faults.dropIncoming = 1
        await online.setDatagramFaults(faults)
        let identity = try await device.identify()
        #expect(identity.serialNumber == "ON123456")

        faults = UFRDatagramFaults()
        faults.duplicateOutgoing = 1
        faults.delayOutgoing = 1
        await online.setDatagramFaults(faults)
        // GET_READER_TYPE answered twice, then GET_SERIAL_NUMBER's answer held back: every
        // command still gets its own answer.
        let again = try await device.identify()
        #expect(again == identity)
        await online.stop()
    }

    @Test("UDP: an APDU is never sent twice; a lost ACK is passed, a lost answer is a card loss")
    func apduNeverDuplicated() async throws {
        let online = try await UFRTestSupport.online()
        let device = try await UFRTestSupport.device(online, .udp)
        _ = try await device.powerOn()

        var faults = UFRDatagramFaults()
        faults.dropOutgoing = 1 // the ACK
        await online.setDatagramFaults(faults)
        let answer = try await device.transmit(UFRTestSupport.getVersion)
        #expect(answer.suffix(2) == [0x91, 0xAF])
        #expect(await online.reader.apduLog.count == 1)

        faults.dropOutgoing = 2 // the ACK and the answer
        await online.setDatagramFaults(faults)
        do {
            _ = try await device.transmit([0x90, 0xAF, 0x00, 0x00, 0x00])
            Issue.record("an APDU whose answer was lost returned")
        } catch let error as UFRError {
            #expect(error == .timedOut(.apduTransceive, after: UFRTestSupport.timing.replyTimeout))
            #expect(error.cardLoss == .notResponding)
        }
        #expect(await online.reader.apduLog.count == 2, "the card saw the second APDU once")
        await #expect(throws: UFRError.cardNotPowered) { try await device.transmit(UFRTestSupport.getVersion) }
        await online.stop()
    }

    @Test(
        "a card lifted mid-exchange is a card loss; the reader then finds no card",
        arguments: UFRTestSupport.Transport.allCases)
    func liftedMidExchange(_ transport: UFRTestSupport.Transport) async throws {
        let online = try await UFRTestSupport.online()
        let opened = try await UFRTestSupport.open(online, transport)
        let reader = try #require(opened.readers.first)
        let session = try await reader.connect()
        await online.reader.liftOnNextAPDU()
        do {
            _ = try await session.transmit(try CommandAPDU(bytes: UFRTestSupport.getVersion))
            Issue.record("an APDU to a lifted card returned")
        } catch {
            #expect(error.meansCardLost, "\(error)")
            #expect(error.errorCategory == .card)
        }
        await session.close()
        #expect(await online.reader.isSessionOpen == false)
        let device = (reader.driver as? UFRReaderDriver)?.device
        #expect(try await device?.presence() == .absent)
        try await opened.close()
        await online.stop()
    }

    @Test(
        "cancelling mid-APDU returns at once and leaves the reader usable", arguments: UFRTestSupport.Transport.allCases
    )
    func cancellationMidAPDU(_ transport: UFRTestSupport.Transport) async throws {
        let online = try await UFRTestSupport.online()
        let device = try await UFRTestSupport.device(online, transport)
        _ = try await device.powerOn()
        await online.reader.holdNextAPDU()
        let pending = Task { try await device.transmit(UFRTestSupport.getVersion) }
        await online.reader.waitForHeldAPDU()
        pending.cancel()
        let outcome = await pending.result
        #expect(throws: CancellationError.self) { try outcome.get() }
        await online.reader.releaseAPDU()
        // The held GetVersion's late answer (91 AF) must not be taken for this one's.
        let answer = try await device.transmit([0x90, 0x6E, 0x00, 0x00, 0x00]) // GetFreeMemory
        #expect(answer.suffix(2) == [0x91, 0x00], "\(answer)")
        await online.stop()
    }

    @Test(
        "every hostile mode ends in a typed error within the deadline",
        arguments: UFRSimulatorFault.allCases, UFRTestSupport.Transport.allCases)
    func hostile(_ fault: UFRSimulatorFault, _ transport: UFRTestSupport.Transport) async throws {
        let online = try await UFRTestSupport.online()
        let device = try await UFRTestSupport.device(online, transport)
        _ = try await device.powerOn()
        await online.reader.setFault(fault)
        let clock = ContinuousClock()
        let started = clock.now
        do {
            _ = try await device.transmit(UFRTestSupport.getVersion)
            Issue.record("a hostile reader's answer was taken")
        } catch let error as UFRError {
            switch error {
            case .timedOut, .corruptReply: break
            default: Issue.record("unexpected error \(error)")
            }
        }
        // The APDU's timeout, plus the datagram ACK wait, plus scheduling slack.
        #expect(clock.now - started < UFRTestSupport.timing.replyTimeout * 3)
        await online.stop()
    }
}
