import CardFlow
import CardFlowRelay
import CardFlowSimulator
import Foundation
import Testing

/// The relay client against the test service and the simulated DESFire card.
@Suite("Relay end to end")
struct RelayEndToEndTests {
    static func reader(_ specification: String) async throws -> (Reader, SimulatorSetup) {
        let setup = try await SimulatorSetup(specification: try SimulatorSpecification(parsing: specification))
        return (setup.cardFlowReaders()[0], setup)
    }

    static func policy(cardReturn: Duration = .seconds(5)) -> SessionPolicy {
        var policy = SessionPolicy()
        policy.connectTimeout = .seconds(2)
        policy.cardReturnTimeout = cardReturn
        policy.presencePollInterval = .milliseconds(50)
        return policy
    }

    static func configuration(
        _ server: TestRelayServer, aids: [[UInt8]] = [DESFireRelayService.piccAID],
        limits: RelayLimits = RelayLimits()
    ) -> RelayConfiguration {
        RelayConfiguration(url: server.url, bearerToken: "test-token", aids: aids, limits: limits)
    }

    /// Runs a sync and collects its events.
    static func sync(
        _ configuration: RelayConfiguration, on reader: Reader,
        policy: SessionPolicy = policy()
    ) async -> (Result<RelayResult, any Error>, [RelayEvent]) {
        let run = RelayClient(configuration: configuration).start(on: reader, policy: policy)
        let collector = Task { await run.progress.reduce(into: [RelayEvent]()) { $0.append($1) } }
        let result: Result<RelayResult, any Error>
        do {
            result = .success(try await run.result)
        } catch {
            result = .failure(error)
        }
        return (result, await collector.value)
    }

    @Test("a DESFire provisioning run by the service completes, with progress")
    func completes() async throws {
        let server = try await TestRelayServer.start(behaviour: DESFireRelayService.behaviour())
        defer { Task { await server.stop() } }
        let (reader, _) = try await Self.reader("sim:desfire")
        let (result, events) = await Self.sync(Self.configuration(server), on: reader)
        let outcome = try result.get()
        #expect(outcome.message == "provisioned")
        #expect(outcome.resumes == 0)
        #expect(outcome.apduCount > 10)
        #expect(events.contains(.syncing(0.5)))
        #expect(events.contains(.syncing(1.0)))
        #expect(events.last == .completed(message: "provisioned"))
        let log = server.log
        #expect(await log.authorizations == ["Bearer test-token"])
        let hello = try #require(await log.messages.first)
        #expect(hello.type == "hello" && hello.v == 1)
        #expect(hello.aid == "D2760000850100" && hello.select == "9000")
        #expect(hello.uid?.count == 14 && hello.atr != nil)
        // The card holds what the service wrote.
        #expect(try await DESFireRelayService.readBack(on: reader) == DESFireRelayService.payload)
    }

    @Test("the card lifted and put back mid-sync: the service is told, the sync resumes after a reset")
    func liftedAndReturned() async throws {
        let server = try await TestRelayServer.start(behaviour: DESFireRelayService.behaviour())
        defer { Task { await server.stop() } }
        let (reader, _) = try await Self.reader("sim:desfire,lift-after=5,return-after=300")
        let (result, events) = await Self.sync(Self.configuration(server), on: reader)
        let outcome = try result.get()
        #expect(outcome.resumes == 1)
        #expect(events.contains(.cardLost))
        #expect(events.contains(.resumed))
        let lost = try #require(events.firstIndex(of: .cardLost))
        #expect(events[lost...].contains(.waitingForCard))
        let types = await server.log.types
        let lostAt = try #require(types.firstIndex(of: "cardLost"))
        let resetAt = try #require(types.firstIndex(of: "cardReset"))
        #expect(lostAt < resetAt)
        #expect(try await DESFireRelayService.readBack(on: reader) == DESFireRelayService.payload)
    }

    @Test(
        "another card put back: wrongCard, the other card is not touched, the sync fails when the card does not return")
    func wrongCard() async throws {
        let server = try await TestRelayServer.start(behaviour: DESFireRelayService.behaviour())
        defer { Task { await server.stop() } }
        let (reader, _) = try await Self.reader("sim:desfire,lift-after=5,return-after=300,swap")
        let (result, events) = await Self.sync(
            Self.configuration(server), on: reader,
            policy: Self.policy(cardReturn: .milliseconds(1500)))
        #expect(events.contains { if case .wrongCard = $0 { true } else { false } })
        #expect(!events.contains(.resumed))
        guard case .failure(let error) = result, case .card(let reason) = error as? RelayError else {
            Issue.record("expected a card failure, got \(result)")
            return
        }
        #expect(reason.contains("did not come back"))
        #expect(await server.log.types.contains("cardLost"))
        #expect(!(await server.log.types.contains("cardReset")))
        // The service is told the client gave up.
        #expect(await server.log.waitUntil { await $0.types.contains("error") })
        // The stranger got no application.
        #expect(try await DESFireRelayService.readBack(on: reader) == nil)
    }

    @Test("a card without the application is refused and the service never contacted")
    func unsupportedCard() async throws {
        let server = try await TestRelayServer.start(behaviour: DESFireRelayService.behaviour())
        defer { Task { await server.stop() } }
        let (reader, _) = try await Self.reader("sim:desfire")
        let (result, events) = await Self.sync(
            Self.configuration(server, aids: [RelayConfiguration.defaultAID]), on: reader)
        guard case .failure(let error) = result, case .unsupportedCard(let tried) = error as? RelayError else {
            Issue.record("expected unsupportedCard, got \(result)")
            return
        }
        #expect(tried == [RelayConfiguration.defaultAID])
        #expect("\(error)".contains("unsupported card"))
        #expect(events.last.map { if case .failed = $0 { true } else { false } } == true)
        try await Task.sleep(for: .milliseconds(100))
        #expect(await server.log.connections == 0)
        // The reader is usable afterwards.
        #expect(try await DESFireRelayService.readBack(on: reader) == nil)
    }

    @Test("the service dropping the connection fails the sync")
    func serviceDrops() async throws {
        let server = try await TestRelayServer.start { connection in
            _ = try await connection.next()
            try await connection.send(json: ["v": 1, "type": "apdu", "id": 1, "apdu": "9060000000"])
            _ = try await connection.next()
            try connection.drop()
        }
        defer { Task { await server.stop() } }
        let (reader, _) = try await Self.reader("sim:desfire")
        let (result, _) = await Self.sync(Self.configuration(server), on: reader)
        guard case .failure(let error) = result, let relayError = error as? RelayError else {
            Issue.record("expected a relay error, got \(result)")
            return
        }
        switch relayError {
        case .connectionClosed, .connectionFailed: break
        default: Issue.record("expected a closed connection, got \(relayError)")
        }
    }

    @Test("the service reporting a failure ends the sync with its reason")
    func serviceFails() async throws {
        let server = try await TestRelayServer.start { connection in
            _ = try await connection.next()
            try await connection.send(json: ["v": 1, "type": "failed", "reason": "card blocked"])
        }
        defer { Task { await server.stop() } }
        let (reader, _) = try await Self.reader("sim:desfire")
        let (result, _) = await Self.sync(Self.configuration(server), on: reader)
        guard case .failure(let error) = result else { Issue.record("expected a failure"); return }
        #expect(error as? RelayError == .serviceFailed(reason: "card blocked"))
    }

    static let malformed: [(String, RelayProtocolViolation)] = [
        ("not json at all", .malformedMessage("not a JSON object of the protocol")),
        (#"{"v":2,"type":"apdu","id":1,"apdu":"9060000000"}"#, .unsupportedVersion(2)),
        (#"{"v":1,"type":"shell","command":"reboot"}"#, .unknownType("shell")),
        (#"{"v":1,"type":"apdu","id":7,"apdu":"9060000000"}"#, .unexpectedID(expected: 1, received: 7)),
        (#"{"v":1,"type":"apdu","id":1,"apdu":"90600"}"#, .invalidAPDU(id: 1, reason: "")),
        (#"{"v":1,"type":"apdu","id":1}"#, .missingField(type: "apdu", field: "apdu")),
        (#"{"v":1,"type":"apdu","id":"1","apdu":"9060000000"}"#, .malformedMessage("wrong type for 'id'")),
        (#"{"v":1,"type":"progress","fraction":1.5}"#, .invalidProgress(1.5)),
        (
            #"{"v":1,"type":"apdu","id":1,"apdu":"\#(String(repeating: "00", count: 300))"}"#,
            .apduTooLarge(id: 1, size: 300, limit: 256)
        ),
    ]

    @Test("malformed service messages fail the sync with a typed reason", arguments: malformed.indices)
    func malformedMessage(_ index: Int) async throws {
        let (text, expected) = Self.malformed[index]
        let server = try await TestRelayServer.start { connection in
            _ = try await connection.next()
            try await connection.send(text)
            _ = try? await connection.next()
        }
        defer { Task { await server.stop() } }
        let (reader, _) = try await Self.reader("sim:desfire")
        let (result, events) = await Self.sync(
            Self.configuration(server, limits: RelayLimits(maxAPDUSize: 256)), on: reader)
        guard case .failure(let error) = result, case .protocolViolation(let violation) = error as? RelayError else {
            Issue.record("expected a protocol violation for \(text), got \(result)")
            return
        }
        if case .invalidAPDU(let id, _) = expected, case .invalidAPDU(let got, _) = violation {
            #expect(id == got)
        } else {
            #expect(violation == expected)
        }
        #expect(events.last.map { if case .failed = $0 { true } else { false } } == true)
        // The service is told why.
        #expect(await server.log.waitUntil { await $0.types.contains("error") })
    }

    @Test("an oversize message is refused with a typed reason")
    func oversizeMessage() async throws {
        let server = try await TestRelayServer.start { connection in
            _ = try await connection.next()
            try await connection.send(
                #"{"v":1,"type":"done","message":""# + String(repeating: "x", count: 4000) + #""}"#)
            _ = try? await connection.next()
        }
        defer { Task { await server.stop() } }
        let (reader, _) = try await Self.reader("sim:desfire")
        let (result, _) = await Self.sync(Self.configuration(server, limits: RelayLimits(maxAPDUSize: 256)), on: reader)
        guard case .failure(let error) = result else { Issue.record("expected a failure"); return }
        #expect(error as? RelayError == .protocolViolation(.messageTooLarge))
    }

    @Test("a binary frame is refused")
    func binaryFrame() async throws {
        let server = try await TestRelayServer.start { connection in
            _ = try await connection.next()
            try await connection.sendBinary([0x90, 0x60, 0x00, 0x00, 0x00])
            _ = try? await connection.next()
        }
        defer { Task { await server.stop() } }
        let (reader, _) = try await Self.reader("sim:desfire")
        let (result, _) = await Self.sync(Self.configuration(server), on: reader)
        guard case .failure(let error) = result else { Issue.record("expected a failure"); return }
        #expect(error as? RelayError == .protocolViolation(.binaryFrame))
    }

    @Test("limits: a silent service times out, too many APDUs are refused")
    func limits() async throws {
        let silent = try await TestRelayServer.start { connection in
            _ = try await connection.next()
            _ = try? await connection.next()
        }
        defer { Task { await silent.stop() } }
        let (reader, _) = try await Self.reader("sim:desfire")
        let (idle, _) = await Self.sync(
            Self.configuration(silent, limits: RelayLimits(idleTimeout: .milliseconds(300))), on: reader)
        guard case .failure(let idleError) = idle else { Issue.record("expected a failure"); return }
        #expect(idleError as? RelayError == .idleTimeout(.milliseconds(300)))

        let chatty = try await TestRelayServer.start { connection in
            _ = try await connection.next()
            for id in 1...3 {
                try await connection.send(json: ["v": 1, "type": "apdu", "id": id, "apdu": "9060000000"])
            }
            _ = try? await connection.next()
        }
        defer { Task { await chatty.stop() } }
        let (many, _) = await Self.sync(Self.configuration(chatty, limits: RelayLimits(maxAPDUs: 2)), on: reader)
        guard case .failure(let manyError) = many else { Issue.record("expected a failure"); return }
        #expect(manyError as? RelayError == .tooManyAPDUs(limit: 2))
    }

    @Test("cancelling the task tells the service, stops the APDU in flight and leaves the reader usable")
    func cancellation() async throws {
        let server = try await TestRelayServer.start { connection in
            _ = try await connection.next()
            try await connection.send(json: ["v": 1, "type": "apdu", "id": 1, "apdu": "9060000000"])
            _ = try? await connection.next()
            _ = try? await connection.next()
        }
        defer { Task { await server.stop() } }
        let (reader, _) = try await Self.reader("sim:desfire,latency=1500")
        let run = RelayClient(configuration: Self.configuration(server)).start(on: reader, policy: Self.policy())
        let waiter = Task { try await run.result }
        // Wait until the service has been greeted (the gate took one slow APDU), then cancel
        // while GetVersion is in flight.
        // (Power-on, UID and SELECT take 1.5 s each here; allow for a loaded machine.)
        let greeted = await server.log.waitUntil(timeout: .seconds(30)) { await $0.types.contains("hello") }
        try #require(greeted)
        try await Task.sleep(for: .milliseconds(200))
        let cancelledAt = ContinuousClock.now
        waiter.cancel()
        let outcome = await waiter.result
        let took = ContinuousClock.now - cancelledAt
        guard case .failure(let error) = outcome else { Issue.record("expected cancellation"); return }
        #expect(error is CancellationError)
        #expect(took < .milliseconds(1400), "the APDU in flight was not aborted (\(took))")
        #expect(await server.log.waitUntil(timeout: .seconds(10)) { await $0.types.contains("cancel") })
        // The reader serves the next session.
        #expect(try await DESFireRelayService.readBack(on: reader) == nil)
    }
}
