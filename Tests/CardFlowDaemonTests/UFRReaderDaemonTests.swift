import CardFlow
import CardFlowDaemon
import CardFlowDaemonFlows
import CardFlowDaemonTestSupport
import CardFlowSimulatorCards
import CardFlowSimulatorUFR
import CardFlowUFR
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
}
