import CardFlow
import CardFlowCCID
import CardFlowCCIDProtocol
import CardFlowDaemon
import CardFlowDaemonControl
import CardFlowDaemonFlows
import CardFlowSimulator
import CardFlowSimulatorUSB
import Foundation
import Logging
import Testing

extension USBIntegration {
    /// cardd with `usb` readers meets a reader whose descriptor declares a 4 GiB message: it
    /// used to crash on hotplug (and crash-loop under a supervisor). Now the reader is driven
    /// with a clamped buffer and its card's job succeeds.
    @Suite struct DaemonHostileDescriptorTests {
        /// Every event the daemon published, searched with a bounded wait.
        actor Events {
            private(set) var all: [DaemonEvent] = []
            func record(_ event: DaemonEvent) { all.append(event) }

            func first<T: Sendable>(timeout: Duration = .seconds(30), _ match: (DaemonEvent) -> T?) async -> T? {
                let deadline = ContinuousClock.now + timeout
                while ContinuousClock.now < deadline {
                    for event in all { if let value = match(event) { return value } }
                    try? await Task.sleep(for: .milliseconds(20))
                }
                return nil
            }
        }

        @Test func hotpluggedReaderWithAHugeMessageLengthRunsItsJob() async throws {
            guard let testbed = try MockEnvironment.testbed() else { return }
            let select: [UInt8] = [0x00, 0xA4, 0x04, 0x00, 0x07, 0xA0, 0x00, 0x00, 0x02, 0x47, 0x10, 0x01]
            let configuration = DaemonConfiguration(
                readers: ["usb"],
                rules: [
                    CardRule(name: "select", flow: .apdus([select, select], expect: 0x9000))
                ])
            let folder = "/tmp/cardd-hostile-\(UUID().uuidString.prefix(8))"
            defer { try? FileManager.default.removeItem(atPath: folder) }
            var logger = Logger(label: "cardd.hostile-descriptor-test")
            logger.logLevel = .error
            let daemon = try CardDaemon(
                configuration: ConfigurationStore(configuration, path: nil, flowKinds: .standard),
                socketPath: folder + "/cardd.sock",
                jobLogPath: folder + "/jobs.sqlite", readerSources: [USBReaderSource()], logger: logger)
            let events = Events()
            let stream = await daemon.bus.subscribe()
            let recording = Task { for await event in stream { await events.record(event) } }
            defer { recording.cancel() }
            try await whileRunning(daemon) {
                let descriptor = CCIDClassDescriptor(
                    features: [.automaticParameterNegotiation, .extendedAPDULevel],
                    maxMessageLength: .max)
                let virtual = VirtualCCIDReader(
                    configuration: VirtualReaderConfiguration(
                        serialNumber: "HUGE\(UInt32.random(in: 0...UInt32.max))", descriptor: descriptor))
                await virtual.insert(ISO7816Card(seed: 5))
                let device = try testbed.attach(virtual)
                defer { withExtendedLifetime(device) {} }

                guard
                    let job = await events.first({ event -> JobID? in
                        if case .jobStarted(let id, _, _, _) = event { id } else { nil }
                    })
                else {
                    Issue.record("no job started on the hotplugged reader; events: \(await events.all)")
                    return
                }
                guard
                    let ending = await events.first({ event -> JobState? in
                        if case .jobFinished(job, let state, _) = event { state } else { nil }
                    })
                else {
                    Issue.record("the job did not finish; events: \(await events.all)")
                    return
                }
                let seen = await events.all
                #expect(ending == .succeeded, "\(seen)")
                await device.unplug()
            }
        }
    }
}
