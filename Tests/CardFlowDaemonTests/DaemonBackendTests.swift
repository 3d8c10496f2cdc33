import CardFlow
import CardFlowDaemon
import CardFlowDaemonTestSupport
import CardFlowSimulator
import CardFlowVPCD
import CardFlowVPCDProtocol
import Logging
import Testing

/// cardd's readers beyond USB and the simulator: a vpcd network reader in `"readers"`, a card
/// side connecting to it as a card arrival that runs the rules, and leaving as a removal.
@Suite("cardd with a vpcd reader")
struct DaemonBackendTests {
    @Test func aCardSideConnectingIsACardArrivalThatRunsTheRules() async throws {
        try await DaemonHarness.run(readers: ["vpcd:127.0.0.1:0"]) { harness in
            // Port 0: the system chose one; the reader's id says which.
            let end = ContinuousClock.now + .seconds(60)
            while await harness.daemon.fleet.readers().isEmpty, ContinuousClock.now < end {
                try await Task.sleep(for: .milliseconds(20))
            }
            let info = try #require(await harness.daemon.fleet.readers().first)
            #expect(info.backend == "vpcd")
            let port = try #require(info.id.split(separator: ":").last.flatMap { Int($0) })
            // The card side: a simulated ISO 7816 card behind a CardFlow reader, exported.
            let virtual = VirtualCCIDReader()
            await virtual.insert(ISO7816Card(seed: 7))
            let card = ReaderVPCDCard(reader: Reader.simulated(virtual))
            var quiet = Logger(label: "test.exporter")
            quiet.logLevel = .critical
            let exporter = VPCDCardExporter(card: card, host: "127.0.0.1", port: port, logger: quiet)
            let exporting = Task { await exporter.run() }
            defer { exporting.cancel() }
            let record = try await harness.waitForJob { $0.reader == info.id && $0.state != .running }
            #expect(record.state == .succeeded, "\(record.error ?? "")")
            exporting.cancel()
            await exporting.value
            await card.powerOff()
        }
    }
}
