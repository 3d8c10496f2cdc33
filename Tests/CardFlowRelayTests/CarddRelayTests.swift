import CardFlow
import CardFlowDaemon
import CardFlowDaemonControl
import CardFlowDaemonFlows
import CardFlowDaemonTestSupport
import CardFlowRelay
import Foundation
import Logging
import Testing

/// cardd's `relay` flow kind: a card matching the rule is synced by the test service, with the
/// token from the key store and the service's progress in the job log.
@Suite("cardd relay jobs")
struct CarddRelayTests {
    static func rule(_ server: TestRelayServer, tokenSecret: String? = "relay.token") -> CardRule {
        CardRule(
            name: "sync",
            flow: .relay(
                RelayRule(
                    url: server.url, aids: [DESFireRelayService.piccAID],
                    tokenSecret: tokenSecret, idleTimeoutSeconds: 20)))
    }

    static func tokenStore() async throws -> InMemoryKeyStore {
        let keys = InMemoryKeyStore()
        try await keys.setSecret(try SecretBytes(Array("daemon-token".utf8)), named: "relay.token")
        return keys
    }

    @Test func aMatchingCardIsSyncedWithProgressInTheJobLog() async throws {
        let server = try await TestRelayServer.start(behaviour: DESFireRelayService.behaviour())
        defer { Task { await server.stop() } }
        try await DaemonHarness.run(
            readers: ["sim:desfire"], rules: [Self.rule(server)], keys: try await Self.tokenStore()
        ) { cardd in
            let record = try await cardd.waitForJob { $0.state != .running }
            #expect(record.state == .succeeded, "\(record.error ?? "")")
            #expect(record.flow == "relay" && record.rule == "sync")
            #expect(record.outcome?.values["message"] == "provisioned")
            #expect(Int(record.outcome?.values["apdus"] ?? "") ?? 0 > 10)
            #expect(record.outcome?.values["resumes"] == "0")
            #expect(record.cardUID != nil)
            let events = try await cardd.daemon.jobLog?.events(of: record.id) ?? []
            let fractions = events.filter { $0.kind == "progress" }.map(\.detail)
            #expect(fractions.count >= 4, "\(events.map(\.kind))")
            #expect(await server.log.authorizations == ["Bearer daemon-token"])
            // The token never reaches the job log.
            #expect(!events.contains { $0.detail.contains("daemon-token") })
            #expect(!(record.outcome?.values.values.contains { $0.contains("daemon-token") } ?? false))
        }
    }

    @Test func aCardWithoutTheApplicationIsRefusedAndTheServiceNeverContacted() async throws {
        let server = try await TestRelayServer.start(behaviour: DESFireRelayService.behaviour())
        defer { Task { await server.stop() } }
        try await DaemonHarness.run(
            readers: ["sim:iso7816"], rules: [Self.rule(server)], keys: try await Self.tokenStore()
        ) { cardd in
            let record = try await cardd.waitForJob { $0.state != .running }
            #expect(record.state == .failed)
            #expect(record.error?.contains("unsupported card") == true, "\(record.error ?? "")")
            #expect(await server.log.connections == 0)
        }
    }

    @Test func aMissingTokenSecretFailsBeforeTheCardIsTouched() async throws {
        let server = try await TestRelayServer.start(behaviour: DESFireRelayService.behaviour())
        defer { Task { await server.stop() } }
        try await DaemonHarness.run(readers: ["sim:desfire"], rules: [Self.rule(server)], keys: InMemoryKeyStore()) {
            cardd in
            let record = try await cardd.waitForJob { $0.state != .running }
            #expect(record.state == .failed)
            #expect(record.error?.contains("no secret 'relay.token'") == true, "\(record.error ?? "")")
            #expect(record.cardATR == nil)
            #expect(await server.log.connections == 0)
        }
    }

    @Test func cancellingTheJobTellsTheServiceAndFreesTheReader() async throws {
        // A service that says hello back with nothing: the sync waits until cancelled.
        let server = try await TestRelayServer.start { connection in
            _ = try await connection.next()
            _ = try? await connection.next()
        }
        defer { Task { await server.stop() } }
        try await DaemonHarness.run(readers: ["sim:desfire"], rules: [Self.rule(server, tokenSecret: nil)], keys: nil) {
            cardd in
            #expect(await server.log.waitUntil(timeout: .seconds(30)) { await $0.types.contains("hello") })
            let running = try await cardd.waitForJob { $0.state == .running }
            let client = try await ControlClient.connect(path: cardd.socket)
            let cancelled = try await client.request(["op": "cancel", "job": .number(Double(running.id))])
            #expect(cancelled["result"]?["cancelled"] == .bool(true), "\(cancelled.jsonLine())")
            let record = try await cardd.waitForJob { $0.id == running.id && $0.state != .running }
            #expect(record.state == .cancelled)
            let told = await server.log.waitUntil(timeout: .seconds(30)) { await $0.types.contains("cancel") }
            let types = await server.log.types
            #expect(told, "\(types)")
            // The reader still works.
            let again = try await client.request([
                "op": "apdu", "reader": "sim:0", "apdus": ["9060000000"], "follow": .bool(true),
            ])
            #expect(again["result"]?["state"] == "succeeded", "\(again.jsonLine())")
            await client.close()
        }
    }
}
