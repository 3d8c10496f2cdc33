import CardFlow
import CardFlowDaemon
import CardFlowDaemonControl
import CardFlowDaemonTestSupport
import Foundation
import Testing

/// Everything a control client sends is bounded: nesting, connections, requests in flight,
/// metric labels, and the job-log events its jobs write.
@Suite("cardd control socket limits", .serialized)
struct ControlSocketLimitsTests {
    @Test func aLineOf100kOpeningBracketsIsRefusedQuicklyAndTheDaemonKeepsServing() async throws {
        try await DaemonHarness.run(readers: ["sim:iso7816"]) { harness in
            let client = try await ControlClient.connect(path: harness.socket)
            let started = ContinuousClock.now
            let brackets = try await client.send(line: String(repeating: "[", count: 100_000))
            #expect(brackets["error"]?["code"] == "tooDeep", "\(brackets.jsonLine())")
            let nested = try await client.send(
                line: #"{"id":2,"op":"ping","x":"# + String(repeating: "{\"a\":", count: 50_000)
                    + "1" + String(repeating: "}", count: 50_000) + "}")
            #expect(nested["error"]?["code"] == "tooDeep", "\(nested.jsonLine())")
            #expect(
                ContinuousClock.now - started < .seconds(30),
                "refused without parsing the nesting (a quadratic parse takes minutes)")
            // Brackets inside strings are text, and moderate nesting is fine.
            let fine = try await client.send(
                line: #"{"id":3,"op":"ping","note":"[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[","x":[[[[{"a":[1]}]]]]}"#)
            #expect(fine["result"] == "pong", "\(fine.jsonLine())")
            #expect(try await client.request(["op": "ping"])["result"] == "pong")
            await client.close()
        }
    }

    @Test func connectionsBeyondTheLimitAreRefusedAndFreedSlotsAreReused() async throws {
        let configuration = DaemonConfiguration(readers: ["sim:iso7816"], rules: [])
        try await DaemonHarness.run(configuration: configuration, limits: DaemonLimits(maximumConnections: 2)) {
            harness in
            let first = try await ControlClient.connect(path: harness.socket)
            let second = try await ControlClient.connect(path: harness.socket)
            #expect(try await first.request(["op": "ping"])["result"] == "pong")
            #expect(try await second.request(["op": "ping"])["result"] == "pong")
            let third = try await ControlClient.connect(path: harness.socket)
            let refused = try await third.request(["op": "ping"])
            #expect(refused["error"]?["code"] == "tooManyConnections", "\(refused.jsonLine())")
            await third.close()
            await first.close()
            // The server notices the close asynchronously: a new connection gets in soon after.
            var served = false
            for _ in 0..<100 where !served {
                let again = try await ControlClient.connect(path: harness.socket)
                served = (try? await again.request(["op": "ping"]))?["result"] == "pong"
                await again.close()
                if !served { try await Task.sleep(for: .milliseconds(20)) }
            }
            #expect(served)
            await second.close()
        }
    }

    @Test func requestsInFlightBeyondTheLimitAreAnsweredBusy() async throws {
        let configuration = DaemonConfiguration(readers: ["sim:iso7816"], rules: [])
        try await DaemonHarness.run(
            configuration: configuration,
            limits: DaemonLimits(maximumRequestsPerConnection: 2)
        ) { harness in
            let client = try await ControlClient.connect(path: harness.socket)
            // Two event subscriptions stay open: the connection's two slots are taken.
            #expect(try await client.request(["id": .number(1), "op": "events"])["result"] == "subscribed")
            #expect(try await client.request(["id": .number(2), "op": "events"])["result"] == "subscribed")
            let busy = try await client.request(["id": .number(3), "op": "ping"])
            #expect(busy["error"]?["code"] == "busy", "\(busy.jsonLine())")
            await client.close()
        }
    }

    @Test func madeUpOperationsDoNotBecomeMetricLabels() async throws {
        try await DaemonHarness.run(readers: ["sim:iso7816"]) { harness in
            let client = try await ControlClient.connect(path: harness.socket)
            for index in 0..<200 {
                let answer = try await client.request(["op": .string("made-up-\(index)")])
                #expect(answer["error"]?["code"] == "unknownOp")
            }
            _ = try await client.request(["op": "ping"])
            let exposition = harness.daemon.metrics.exposition()
            #expect(!exposition.contains("made-up"))
            #expect(exposition.contains(#"op="unknown""#))
            #expect(exposition.contains(#"op="ping""#))
            await client.close()
        }
    }

    @Test func aJobWritesAtMostTheEventLimitToTheJobLog() async throws {
        let configuration = DaemonConfiguration(readers: ["sim:iso7816"], rules: [])
        try await DaemonHarness.run(configuration: configuration, limits: DaemonLimits(maximumEventsPerJob: 20)) {
            harness in
            let client = try await ControlClient.connect(path: harness.socket)
            let apdus = JSONValue.array(Array(repeating: "00A4040007A0000002471001", count: 300))
            let answer = try await client.request([
                "op": "apdu", "reader": "sim:0", "apdus": apdus, "follow": .bool(true),
            ])
            #expect(answer["result"]?["state"] == "succeeded", "\(answer.jsonLine())")
            let job = try #require(answer["result"]?["id"]?.intValue)
            let record = try await client.request(["op": "job", "job": .number(Double(job))])
            guard case .array(let events)? = record["result"]?["events"] else { Issue.record("no events"); return }
            #expect(events.count == 21, "\(events.count) events")
            #expect(events.last?["kind"] == "eventsTruncated")
            #expect(record["result"]?["lastStep"] == "apdus")
            await client.close()
        }
    }
}
