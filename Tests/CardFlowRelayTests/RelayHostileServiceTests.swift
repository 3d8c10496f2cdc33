import CardFlow
import CardFlowDaemon
import CardFlowDaemonControl
import CardFlowDaemonFlows
import CardFlowDaemonTestSupport
import CardFlowRelay
import CardFlowSimulator
import Foundation
import Testing

/// A relay service that misbehaves cannot grow the client's memory, a bearer token never
/// travels in clear text to another machine, and secrets stay out of logs and errors.
@Suite("Relay against hostile services")
struct RelayHostileServiceTests {
    @Test("a service flooding messages while the card is busy is refused with a typed reason")
    func floodIsBounded() async throws {
        let server = try await TestRelayServer.start { connection in
            _ = try await connection.next()
            try await connection.send(json: ["v": 1, "type": "apdu", "id": 1, "apdu": "9060000000"])
            // The card takes 400 ms to answer; meanwhile the service sends a thousand messages.
            for _ in 0..<1_000 { try await connection.send(json: ["v": 1, "type": "progress", "fraction": 0.5]) }
            _ = try? await connection.next()
            _ = try? await connection.next()
        }
        defer { Task { await server.stop() } }
        let (reader, _) = try await RelayEndToEndTests.reader("sim:desfire,latency=400")
        // The idle limit is not what this test is about: long enough for a starved start of the parallel suite.
        let limits = RelayLimits(idleTimeout: .seconds(30), maxQueuedMessages: 16)
        let (result, events) = await RelayEndToEndTests.sync(
            RelayEndToEndTests.configuration(server, limits: limits), on: reader)
        guard case .failure(let error) = result else { Issue.record("expected a failure"); return }
        #expect(error as? RelayError == .protocolViolation(.tooManyQueuedMessages(limit: 16)), "\(error)")
        #expect(events.count <= RelayRun.progressBufferSize)
    }

    @Test(
        "a bearer token is refused over plain ws:// unless the host is loopback",
        arguments: [
            "ws://sync.example.com/sync", "ws://192.0.2.7:8080/sync", "ws://[2001:db8::1]/sync",
            "ws://128.0.0.1/sync", "ws://localhost.example.com/sync", "ws://user:pw@10.0.0.1/sync",
            "WS://Example.COM/sync",
        ])
    func plainTokenRefused(_ url: String) throws {
        let configuration = RelayConfiguration(url: url, bearerToken: "secret-token")
        #expect(throws: RelayError.self) { try configuration.validateURL() }
        do {
            try configuration.validateURL()
        } catch {
            guard case .tokenOverPlainWebSocket = error else { Issue.record("\(error)"); return }
            #expect(!error.description.contains("secret-token"))
        }
        // Without a token the same URL is fine, and so is cardd's rule.
        try RelayConfiguration(url: url).validateURL()
        let rule = #"{"kind":"relay","url":"\#(url)","tokenSecret":"relay.token"}"#
        #expect(throws: DecodingError.self) {
            try DaemonFlowKinds.standard.decoder().decode(FlowSpecification.self, from: Data(rule.utf8))
        }
        // The client fails before any connection is attempted.
        #expect(throws: RelayError.self) { _ = try RelayClient(configuration: configuration).job() }
    }

    @Test(
        "loopback and wss:// carry the token",
        arguments: [
            "ws://127.0.0.1:9/sync", "ws://127.255.3.4/sync", "ws://[::1]:8080/sync", "ws://localhost/sync",
            "ws://[0:0:0:0:0:0:0:1]/sync", "ws://LOCALHOST:80/x", "wss://sync.example.com/sync",
        ])
    func loopbackAllowed(_ url: String) throws {
        try RelayConfiguration(url: url, bearerToken: "secret-token").validateURL()
        let rule = #"{"kind":"relay","url":"\#(url)","tokenSecret":"relay.token"}"#
        _ = try DaemonFlowKinds.standard.decoder().decode(FlowSpecification.self, from: Data(rule.utf8))
    }

    @Test("the token is in no log line, at trace, whether the sync succeeds or fails")
    func tokenNotLogged() async throws {
        let token = "relay-secret-token-Q7x"
        let capture = LogCapture()
        let good = try await TestRelayServer.start(behaviour: DESFireRelayService.behaviour())
        defer { Task { await good.stop() } }
        let (reader, _) = try await RelayEndToEndTests.reader("sim:desfire")
        var configuration = RelayEndToEndTests.configuration(good)
        configuration.bearerToken = token
        let completed = try await RelayClient(configuration: configuration, logger: capture.logger())
            .run(on: reader, policy: RelayEndToEndTests.policy())
        #expect(completed.message == "provisioned")
        #expect(await good.log.authorizations == ["Bearer \(token)"])

        let dropping = try await TestRelayServer.start { connection in
            _ = try await connection.next()
            try connection.drop()
        }
        defer { Task { await dropping.stop() } }
        configuration = RelayEndToEndTests.configuration(dropping)
        configuration.bearerToken = token
        do {
            _ = try await RelayClient(configuration: configuration, logger: capture.logger())
                .run(on: reader, policy: RelayEndToEndTests.policy())
            Issue.record("expected a failure")
        } catch {
            #expect(!String(describing: error).contains(token))
        }
        #expect(capture.count > 0)
        #expect(!capture.text.contains(token))
    }

    @Test("cardd: the relay token is in no log line, job record or control answer")
    func carddTokenNotLogged() async throws {
        let token = "daemon-secret-token-K9"
        let keys = InMemoryKeyStore()
        try await keys.setSecret(try SecretBytes(Array(token.utf8)), named: "relay.token")
        // The service refuses the sync with a reason; the job fails.
        let server = try await TestRelayServer.start { connection in
            _ = try await connection.next()
            try await connection.send(json: ["v": 1, "type": "failed", "reason": "not today"])
            _ = try? await connection.next()
        }
        defer { Task { await server.stop() } }
        let capture = LogCapture()
        let configuration = DaemonConfiguration(readers: ["sim:desfire"], rules: [CarddRelayTests.rule(server)])
        try await DaemonHarness.run(configuration: configuration, keys: keys, logger: capture.logger(label: "cardd")) {
            cardd in
            let record = try await cardd.waitForJob { $0.state != .running }
            #expect(record.state == .failed)
            let client = try await ControlClient.connect(path: cardd.socket)
            let answer = try await client.request(["op": "job", "job": .number(Double(record.id))])
            #expect(!answer.jsonLine().contains(token))
            #expect(!answer.jsonLine().contains(token))
            await client.close()
        }
        #expect(await server.log.authorizations == ["Bearer \(token)"])
        #expect(capture.count > 0)
        #expect(!capture.text.contains(token))
    }
}
