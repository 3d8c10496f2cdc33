import CardFlow
import CardFlowDaemon
import CardFlowDaemonFlows
import CardFlowDaemonTestSupport
import CardFlowSimulatorCards
import CardFlowSimulatorUFR
import CardFlowUFR
import Foundation
import Testing

/// cardd's rules over a uFR reader (issue 37): the source is one more plug, nothing else changes.
@Suite("cardd over a uFR reader")
struct UFRReaderDaemonTests {
    @Test("a report rule runs on the DESFire card of a simulated Nano Online", arguments: ["tcp", "udp"])
    func reportRule(_ transport: String) async throws {
        let online = try await SimulatedUFROnline.start(reader: SimulatedUFRReader(card: DESFireCard(seed: 9)))
        let port = transport == "tcp" ? online.tcpPort : online.udpPort
        let selector = "ufr:\(transport):127.0.0.1:\(port)"
        try await DaemonHarness.run(
            configuration: DaemonConfiguration(readers: [selector], rules: [CardRule(name: "report", flow: .report)]),
            readerSources: [UFRReaderSource()]
        ) { harness in
            let record = try await harness.waitForJob { $0.reader == selector && $0.state != .running }
            #expect(record.state == .succeeded, "\(record.error ?? "")")
        }
        #expect(await online.reader.isSessionOpen == false)
        await online.stop()
    }

    /// A rule's `signals`: green and a short beep after a succeeded job, on the reader itself
    /// (USER_INTERFACE_SIGNAL light 1, beep 1 as the COM protocol numbers them).
    @Test("a rule's success signal lights the uFR reader after its job")
    func successSignal() async throws {
        let online = try await SimulatedUFROnline.start(reader: SimulatedUFRReader(card: DESFireCard(seed: 10)))
        let selector = "ufr:tcp:127.0.0.1:\(online.tcpPort)"
        let json =
            #"{"name": "report", "flow": {"kind": "report"}, "signals": {"success": {"light": "green", "beep": "short"}, "failure": {"light": "red"}}}"#
        let rule = try DaemonFlowKinds.standard.decoder().decode(CardRule.self, from: Data(json.utf8))
        #expect(rule.signals?.failure == ReaderSignal(light: .red, beep: .none))
        try await DaemonHarness.run(
            configuration: DaemonConfiguration(readers: [selector], rules: [rule]), readerSources: [UFRReaderSource()]
        ) { harness in
            let record = try await harness.waitForJob { $0.reader == selector && $0.state != .running }
            #expect(record.state == .succeeded, "\(record.error ?? "")")
            // The signal follows the job's end: wait for it, bounded (a hang fails, load does not).
            let deadline = ContinuousClock.now + .seconds(30)
            while await online.reader.lastSignal == nil, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(20))
            }
            let signal = await online.reader.lastSignal
            #expect(signal?.light == 1 && signal?.beep == 1, "\(String(describing: signal))")
        }
        await online.stop()
    }
}
