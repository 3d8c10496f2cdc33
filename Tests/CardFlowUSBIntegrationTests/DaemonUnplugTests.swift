import CardFlow
import CardFlowCCID
import CardFlowDaemon
import CardFlowDaemonControl
import CardFlowDaemonFlows
import CardFlowSimulator
import CardFlowSimulatorUSB
import Foundation
import Logging
import Testing

extension USBIntegration {
    /// cardd over the real libusb path: a reader pulled out in the middle of a job.
    @Suite struct DaemonUnplugTests {}
}

/// Every event the daemon published, for the test to search (bounded waits, no hang).
private actor EventRecorder {
    private(set) var events: [DaemonEvent] = []
    func record(_ event: DaemonEvent) { events.append(event) }

    /// The first event after `index` that `match` accepts, waiting up to `timeout`.
    func first<T: Sendable>(
        after index: Int = 0, timeout: Duration = .seconds(30),
        _ match: (DaemonEvent) -> T?
    ) async -> (value: T, index: Int)? {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            for position in index..<events.count {
                if let value = match(events[position]) { return (value, position) }
            }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return nil
    }
}

extension USBIntegration.DaemonUnplugTests {
    @Test func aReaderUnpluggedDuringAJobFailsItAndIsPickedUpAgainOnReplug() async throws {
        guard let testbed = try MockEnvironment.testbed() else { return }
        let select: [UInt8] = [0x00, 0xA4, 0x04, 0x00, 0x07, 0xA0, 0x00, 0x00, 0x02, 0x47, 0x10, 0x01]
        let configuration = DaemonConfiguration(
            readers: ["usb"],
            rules: [
                CardRule(name: "long", flow: .apdus(Array(repeating: select, count: 40), expect: 0x9000))
            ])
        let folder = "/tmp/cardd-usb-\(UUID().uuidString.prefix(8))"
        var logger = Logger(label: "cardd.usb-test")
        logger.logLevel = .warning
        let daemon = try CardDaemon(
            configuration: ConfigurationStore(configuration, path: nil, flowKinds: .standard),
            socketPath: folder + "/cardd.sock",
            jobLogPath: folder + "/jobs.sqlite", readerSources: [USBReaderSource()], logger: logger)
        let recorder = EventRecorder()
        let stream = await daemon.bus.subscribe()
        let recording = Task { for await event in stream { await recorder.record(event) } }
        defer { recording.cancel() }
        try await whileRunning(daemon) {
            func slowReader(seed: UInt64) async -> VirtualCCIDReader {
                var readerConfiguration = VirtualReaderConfiguration(
                    serialNumber: "CARDD\(UInt32.random(in: 0...UInt32.max))")
                readerConfiguration.timing.extraLatency = .milliseconds(40)
                let virtual = VirtualCCIDReader(configuration: readerConfiguration)
                await virtual.insert(ISO7816Card(seed: seed))
                return virtual
            }

            let first = try testbed.attach(await slowReader(seed: 31))
            guard
                let (job, started) = await recorder.first({ event -> JobID? in
                    if case .jobStarted(let id, _, _, _) = event { id } else { nil }
                })
            else {
                Issue.record("no job started on the plugged reader; events: \(await recorder.events)")
                return
            }
            guard
                await recorder.first(
                    after: started,
                    { event -> Bool? in
                        if case .jobProgress(job, "stepFinished", _, _) = event { true } else { nil }
                    }) != nil
            else {
                Issue.record("the job made no progress; events: \(await recorder.events)")
                return
            }
            await first.unplug()
            guard
                let (ending, _) = await recorder.first(
                    after: started,
                    { event -> (JobState, String?)? in
                        if case .jobFinished(job, let state, let error) = event { (state, error) } else { nil }
                    })
            else {
                Issue.record("the job did not finish after the unplug; events: \(await recorder.events)")
                return
            }
            #expect(ending.0 == .failed)
            #expect(ending.1?.isEmpty == false, "the job log says why")
            let record = try #require(try await daemon.jobLog?.job(job))
            #expect(record.state == .failed)
            #expect(record.lastStep == "identify")
            let count = await recorder.events.count

            // Replugged (a reader with the same card): supervised again, and its job succeeds.
            // Keep the device: releasing it unplugs it.
            let replugged = try testbed.attach(await slowReader(seed: 31))
            defer { withExtendedLifetime(replugged) {} }
            guard
                let (second, secondStart) = await recorder.first(
                    after: count,
                    { event -> JobID? in
                        if case .jobStarted(let id, _, _, _) = event { id } else { nil }
                    }),
                let (secondEnding, _) = await recorder.first(
                    after: secondStart,
                    { event -> (JobState, String?)? in
                        if case .jobFinished(second, let state, let error) = event { (state, error) } else { nil }
                    })
            else {
                Issue.record("the replugged reader ran no job to its end; events: \(await recorder.events)")
                return
            }
            #expect(secondEnding.0 == .succeeded, "\(secondEnding.1 ?? "")")
        }
    }
}
