import CardFlow
import CardFlowDaemon
import CardFlowDaemonControl
import CardFlowDaemonFlows
import CardFlowDaemonTestSupport
import Foundation
import Testing

/// A flow kind the daemon has never heard of, written here in the test: SELECT an application
/// and record its FCI. Registered with one entry, it runs from a rule like the package's kinds,
/// and the daemon core needs no change: that is what makes a kind a plug.
struct SelectFlow: DaemonFlow, Hashable {
    static let kind = "select"
    static let writesToCard = false
    var aid: HexBytes

    func job(_ context: DaemonFlowContext) async throws -> FlowJob {
        let command = try CommandAPDU(cla: 0x00, ins: 0xA4, p1: 0x04, p2: 0x00, data: aid.bytes, le: 256)
        return FlowJob(
            flow: DaemonFlowSteps.identify.then("select") { outcome, session in
                var outcome = outcome
                let response = try await session.send(command)
                outcome.values["sw"] = response.statusWord.hexString
                return outcome
            })
    }
}

@Suite("cardd with a flow kind it does not know")
struct FlowKindPlugTests {
    static let kinds = DaemonFlowKinds.standard + [DaemonFlowKind(SelectFlow.self)]

    @Test func aRegisteredKindDecodesAndRunsFromARule() async throws {
        let json =
            #"{"readers": ["sim:iso7816"], "rules": [{"name": "sel", "flow": {"kind": "select", "aid": "A0000002471001"}}]}"#
        let configuration = try Self.kinds.decoder().decode(DaemonConfiguration.self, from: Data(json.utf8))
        #expect(configuration.rules.first?.flow.kind == "select")
        try await DaemonHarness.run(configuration: configuration, flowKinds: Self.kinds) { harness in
            let record = try await harness.waitForJob { $0.flow == "select" && $0.state != .running }
            #expect(record.state == .succeeded, "\(record.error ?? "")")
            #expect(record.outcome?.values["sw"] == "9000")
        }
    }

    @Test func withoutTheEntryTheKindIsUnknownAndTheMessageListsTheKinds() {
        let json = #"{"rules": [{"name": "sel", "flow": {"kind": "select", "aid": "A0000002471001"}}]}"#
        #expect {
            try DaemonFlowKinds.standard.decoder().decode(DaemonConfiguration.self, from: Data(json.utf8))
        } throws: { error in
            "\(error)".contains("unknown flow kind 'select'") && "\(error)".contains("ton-activate, relay, fleet")
        }
    }
}
