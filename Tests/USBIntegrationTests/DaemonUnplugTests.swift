import CardDaemon
import CardFlow
import CardSimulator
import CardSimulatorUSB
import Foundation
import Logging
import Testing

extension USBIntegration {
    /// cardd over the real libusb path: a reader pulled out in the middle of a job.
    @Suite struct DaemonUnplugTests {}
}

extension USBIntegration.DaemonUnplugTests {
    @Test func aReaderUnpluggedDuringAJobFailsItAndIsPickedUpAgainOnReplug() async throws {
        guard let testbed = try MockEnvironment.testbed() else { return }
        let apdus = Array(repeating: [UInt8]([0x00, 0xA4, 0x04, 0x00, 0x07, 0xA0, 0x00, 0x00, 0x02, 0x47, 0x10, 0x01]), count: 40)
        let configuration = DaemonConfiguration(readers: ["usb"], rules: [CardRule(name: "long", flow: .apdus(apdus, expect: 0x9000))])
        let folder = "/tmp/cardd-usb-\(UUID().uuidString.prefix(8))"
        var logger = Logger(label: "cardd.usb-test")
        logger.logLevel = .warning
        let daemon = try CardDaemon(configuration: ConfigurationStore(configuration, path: nil), socketPath: folder + "/cardd.sock",
                                    jobLogPath: folder + "/jobs.sqlite", logger: logger)
        var events = await daemon.bus.subscribe().makeAsyncIterator()
        let running = Task { try await daemon.run() }
        defer { running.cancel() }

        func slowReader(seed: UInt64) async -> VirtualCCIDReader {
            var readerConfiguration = VirtualReaderConfiguration(serialNumber: "CARDD\(UInt32.random(in: 0...UInt32.max))")
            readerConfiguration.timing.extraLatency = .milliseconds(40)
            let virtual = VirtualCCIDReader(configuration: readerConfiguration)
            await virtual.insert(ISO7816Card(seed: seed))
            return virtual
        }
        /// The next event that satisfies `condition` (the stream is shared, so others are skipped).
        func next(_ condition: (DaemonEvent) -> Bool) async -> DaemonEvent? {
            while let event = await events.next() { if condition(event) { return event } }
            return nil
        }

        let first = try testbed.attach(await slowReader(seed: 31))
        guard case .readerAdded(let readerID, _)? = await next({ if case .readerAdded = $0 { true } else { false } }),
              case .jobStarted(let job, _, _, _)? = await next({ if case .jobStarted(_, readerID, _, _) = $0 { true } else { false } }) else {
            Issue.record("no reader or job")
            return
        }
        _ = await next { if case .jobProgress(job, "stepFinished", _, _) = $0 { true } else { false } }
        await first.unplug()
        guard case .jobFinished(_, let state, let error)? = await next({ if case .jobFinished(job, _, _) = $0 { true } else { false } }) else {
            Issue.record("the job did not finish")
            return
        }
        #expect(state == .failed)
        #expect(error?.isEmpty == false, "the job log says why")
        let record = try #require(try await daemon.jobLog?.job(job))
        #expect(record.state == .failed)
        #expect(record.lastStep == "identify")

        // Replugged (a reader with the same card): supervised again, and its job succeeds.
        _ = try testbed.attach(await slowReader(seed: 31))
        guard case .readerAdded(let again, _)? = await next({ if case .readerAdded = $0 { true } else { false } }),
              case .jobStarted(let second, _, _, _)? = await next({ if case .jobStarted(_, again, _, _) = $0 { true } else { false } }),
              case .jobFinished(_, let secondState, let secondError)? = await next({ if case .jobFinished(second, _, _) = $0 { true } else { false } })
        else {
            Issue.record("the replugged reader ran no job")
            return
        }
        #expect(secondState == .succeeded, "\(secondError ?? "")")
    }
}
