import CardFlow
import CardFlowDaemon
import CardFlowDaemonControl
import CardFlowDaemonFlows
import CardFlowDaemonTestSupport
import Foundation
import Logging
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The daemon in-process, on simulated readers, driven through its real control socket.
@Suite("cardd control socket", .serialized)
struct ControlSocketTests {
    @Test func badRequestsGetErrorsAndTheDaemonKeepsServingOthers() async throws {
        try await DaemonHarness.run(readers: ["sim:iso7816"]) { harness in
            let a = try await ControlClient.connect(path: harness.socket)
            let b = try await ControlClient.connect(path: harness.socket)
            // A floods a 10 MB line while B keeps working.
            let flood = Task { try await a.send(line: String(repeating: "x", count: 10 << 20)) }
            #expect(try await b.request(["op": "ping"])["result"] == "pong")
            let tooLong = try await flood.value
            #expect(tooLong["error"]?["code"] == "lineTooLong")

            let cases: [(String, String)] = [
                ("garbage", "badJSON"),
                ("[1,2,3]", "badJSON"),
                (#"{"id":3,"op":"launch"}"#, "unknownOp"),
                (#"{"id":4}"#, "badRequest"),
                (#"{"id":5,"op":"apdu","reader":"sim:9","apdus":["00A4040000"]}"#, "unknownReader"),
                (#"{"id":6,"op":"apdu","reader":"sim:0","apdus":"00A4"}"#, "badRequest"),
                (#"{"id":7,"op":"flow","reader":"sim:0","flow":{"kind":"apdu","apdus":["ZZ"]}}"#, "badRequest"),
                (#"{"id":8,"op":"cancel","job":"seven"}"#, "badRequest"),
                (#"{"id":9,"op":"cancel","job":999}"#, "unknownJob"),
                (#"{"id":10,"op":"jobs","limit":0}"#, "badRequest"),
            ]
            for (line, code) in cases {
                let answer = try await a.send(line: line)
                #expect(answer["ok"] == .bool(false), "\(line)")
                #expect(answer["error"]?["code"] == .string(code), "\(line) → \(answer.jsonLine())")
            }
            #expect(try await a.send(line: #"{"id":"x","op":"ping"}"#)["id"] == "x")
            await a.close()
            await b.close()
        }
    }

    @Test func aSubmittedAPDUJobRunsIsStreamedAndLogged() async throws {
        try await DaemonHarness.run(readers: ["sim:iso7816"]) { harness in
            let client = try await ControlClient.connect(path: harness.socket)
            let readers = try await client.request(["op": "readers"])
            guard case .array(let list)? = readers["result"] else { Issue.record("no reader list"); return }
            #expect(list.first?["id"] == "sim:0")

            let events = EventLog()
            let answer = try await client.request(
                ["op": "apdu", "reader": "sim:0", "apdus": ["00A4040007A0000002471001"], "follow": .bool(true)],
                onLine: { await events.append($0) })
            #expect(answer["result"]?["state"] == "succeeded", "\(answer.jsonLine())")
            let responses = answer["result"]?["outcome"]?["values"]?["responses"]?.stringValue ?? ""
            #expect(responses.hasSuffix("9000"))
            #expect(answer["result"]?["trigger"] == "request")
            let kinds = await events.lines.compactMap { $0["event"]?["event"]?.stringValue }
            #expect(kinds.first == "jobStarted" || kinds.contains("jobProgress"))
            #expect(kinds.last == "jobFinished")

            let jobs = try await client.request(["op": "jobs"])
            guard case .array(let records)? = jobs["result"] else { Issue.record("no jobs"); return }
            #expect(records.contains { $0["flow"] == "apdu" && $0["state"] == "succeeded" })
            let metrics = try await client.request(["op": "metrics"])["result"]?.stringValue ?? ""
            #expect(metrics.contains("cardd_jobs_total"))
            #expect(metrics.contains("cardd_control_requests_total"))
            await client.close()
        }
    }

    @Test func aCardOnTheReaderTriggersItsRule() async throws {
        try await DaemonHarness.run(
            readers: ["sim:ndef4"],
            rules: [
                CardRule(
                    name: "poster", match: CardMatch(aid: [0xD2, 0x76, 0x00, 0x00, 0x85, 0x01, 0x01]),
                    flow: .ndefWrite(.uri("https://cardflow.example/x")))
            ]
        ) { harness in
            let record = try await harness.waitForJob { $0.rule == "poster" && $0.state != .running }
            #expect(record.state == .succeeded, "\(record.error ?? "")")
            #expect(record.trigger == .card)
            #expect(record.lastStep == "ndef-write")
            #expect(record.cardUID != nil)
        }
    }

    static let desfireRule = CardRule(
        name: "badges", match: CardMatch(aid: [0xD2, 0x76, 0x00, 0x00, 0x85, 0x01, 0x00]),
        flow: .desfireProvision(
            DESFireProvisioningRule(
                aid: [0x0A, 0x0B, 0x0C], file: 2, size: 48, comm: "enc",
                keySlot: 4, data: Array("door 17".utf8))))

    @Test func aDESFireCardIsProvisionedWithAKeyFromTheKeyStore() async throws {
        let keys = InMemoryKeyStore()
        try await keys.setKey(try StoredKey(algorithm: .aes128, bytes: Array(1...16), version: 2), in: try KeySlot(4))
        try await DaemonHarness.run(readers: ["sim:desfire"], rules: [Self.desfireRule], keys: keys) { harness in
            let record = try await harness.waitForJob { $0.rule == "badges" && $0.state != .running }
            #expect(record.state == .succeeded, "\(record.error ?? "")")
            #expect(record.lastStep == "read back")
            #expect(record.outcome?.values["aid"] == "0A0B0C")
            #expect(record.outcome?.values["written"] == "7 bytes")
            // The key never reaches the job log.
            let events = try await harness.daemon.jobLog?.events(of: record.id) ?? []
            #expect(!events.contains { $0.detail.contains("0102030405060708") })
        }
    }

    @Test func aMissingKeyFailsTheJobBeforeTheCardIsTouched() async throws {
        try await DaemonHarness.run(readers: ["sim:desfire"], rules: [Self.desfireRule], keys: InMemoryKeyStore()) {
            harness in
            let record = try await harness.waitForJob { $0.rule == "badges" && $0.state != .running }
            #expect(record.state == .failed)
            #expect(record.error?.contains("empty") == true, "\(record.error ?? "")")
            #expect(record.lastStep == nil)
        }
        try await DaemonHarness.run(readers: ["sim:desfire"], rules: [Self.desfireRule], keys: nil) { harness in
            let record = try await harness.waitForJob { $0.rule == "badges" && $0.state != .running }
            #expect(record.error?.contains("key store") == true, "\(record.error ?? "")")
        }
    }

    @Test func aRunningJobCanBeCancelled() async throws {
        try await DaemonHarness.run(readers: ["sim:iso7816,latency=50"], rules: []) { harness in
            let client = try await ControlClient.connect(path: harness.socket)
            let apdus: [JSONValue] = Array(repeating: "00A4040007A0000002471001", count: 200)
            let submitted = try await client.request(["op": "apdu", "reader": "sim:0", "apdus": .array(apdus)])
            let job = try #require(submitted["result"]?["job"]?.intValue)
            _ = try await harness.waitForJob { $0.id == JobID(job) && $0.lastStep == "identify" }
            let cancelled = try await client.request(["op": "cancel", "job": .number(Double(job))])
            #expect(cancelled["result"]?["cancelled"] == .bool(true))
            let record = try await harness.waitForJob { $0.id == JobID(job) && $0.state != .running }
            #expect(record.state == .cancelled)
            // The reader is usable afterwards.
            let again = try await client.request([
                "op": "apdu", "reader": "sim:0", "apdus": ["00A4040007A0000002471001"],
                "follow": .bool(true),
            ])
            #expect(again["result"]?["state"] == "succeeded")
            await client.close()
        }
    }

    @Test func metricsAreServedOverLoopbackHTTP() async throws {
        try await DaemonHarness.run(readers: ["sim:iso7816"], metricsPort: 0) { harness in
            _ = try await harness.waitForJob { $0.state == .succeeded }
            let port = try #require(await harness.daemon.metricsEndpoint.port)
            let (body, response) = try await URLSession.shared.data(
                from: URL(string: "http://127.0.0.1:\(port)/metrics")!)
            #expect((response as? HTTPURLResponse)?.statusCode == 200)
            let text = String(decoding: body, as: UTF8.self)
            #expect(text.contains("cardd_jobs_total"), "\(text)")
            let (_, missing) = try await URLSession.shared.data(from: URL(string: "http://127.0.0.1:\(port)/other")!)
            #expect((missing as? HTTPURLResponse)?.statusCode == 404)
        }
    }

    @Test func theSocketIsOwnerOnly() async throws {
        try await DaemonHarness.run(readers: ["sim:none"]) { harness in
            let attributes = try FileManager.default.attributesOfItem(atPath: harness.socket)
            #expect((attributes[.posixPermissions] as? Int) == 0o600)
        }
    }
}

actor EventLog {
    var lines: [JSONValue] = []
    func append(_ line: JSONValue) { lines.append(line) }
}
