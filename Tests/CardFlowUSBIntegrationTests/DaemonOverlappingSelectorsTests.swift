import CardFlow
import CardFlowCCID
import CardFlowDaemon
import CardFlowDaemonControl
import CardFlowDaemonFlows
import CardFlowDaemonTestSupport
import CardFlowSimulator
import CardFlowSimulatorUSB
import Foundation
import Logging
import Testing

extension USBIntegration {
    /// cardd with two `usb` selectors that name the same reader: one libusb context, the reader
    /// opened once and supervised once.
    @Suite struct DaemonOverlappingSelectorsTests {}
}

/// The daemon's events, searched with a bounded wait.
private actor Events {
    private(set) var all: [DaemonEvent] = []
    func record(_ event: DaemonEvent) { all.append(event) }

    func waitFor(timeout: Duration = .seconds(30), _ match: (DaemonEvent) -> Bool) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if all.contains(where: match) { return true }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return false
    }
}

extension USBIntegration.DaemonOverlappingSelectorsTests {
    @Test func aReaderTwoSelectorsNameIsOpenedAndSupervisedOnce() async throws {
        guard let testbed = try MockEnvironment.testbed() else { return }
        let serial = "OVERLAP\(UInt32.random(in: 0...UInt32.max))"
        let select: [UInt8] = [0x00, 0xA4, 0x04, 0x00, 0x07, 0xA0, 0x00, 0x00, 0x02, 0x47, 0x10, 0x01]
        let configuration = DaemonConfiguration(
            readers: ["usb", "usb:serial=\(serial)"],
            rules: [CardRule(name: "select", flow: .apdus([select], expect: 0x9000))])
        let folder = "/tmp/cardd-usb-\(UUID().uuidString.prefix(8))"
        let logs = LogCapture()
        let daemon = try CardDaemon(
            configuration: ConfigurationStore(configuration, path: nil, flowKinds: .standard),
            socketPath: folder + "/cardd.sock", jobLogPath: folder + "/jobs.sqlite",
            readerSources: [USBReaderSource()], logger: logs.logger(label: "cardd.usb-overlap"))
        let events = Events()
        let stream = await daemon.bus.subscribe()
        let recording = Task { for await event in stream { await events.record(event) } }
        defer { recording.cancel() }
        try await whileRunning(daemon) {
            let virtual = VirtualCCIDReader(configuration: VirtualReaderConfiguration(serialNumber: serial))
            await virtual.insert(ISO7816Card(seed: 5))
            let device = try testbed.attach(virtual)
            defer { withExtendedLifetime(device) {} }

            let finished = await events.waitFor { event in
                if case .jobFinished(_, .succeeded, _) = event { true } else { false }
            }
            let all = await events.all
            #expect(finished, "a job ran on the reader; events: \(all)")
            let added = all.filter { event in
                if case .readerAdded = event { true } else { false }
            }
            #expect(added.count == 1, "the reader is supervised once: \(added)")
            let jobs = all.filter { event in
                if case .jobStarted = event { true } else { false }
            }
            #expect(jobs.count == 1, "one card, one job: \(jobs)")
            #expect(
                !logs.text.contains("cannot open reader"), "no selector failed to open the shared reader:\n\(logs.text)"
            )
        }
    }
}
