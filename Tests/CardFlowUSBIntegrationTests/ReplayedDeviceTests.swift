import CardFlowCCIDProtocol
import CardFlowSimulator
import CardFlowSimulatorReaders
import CardFlowSimulatorUSB
import CardFlowTranscripts
import Foundation
import Logging
import Testing

/// The corpus of real readers' conversations (Tests/Fixtures/transcripts) as USB devices on the
/// emulated bus, reached through libusb by CardFlow's CCID driver: the driver must get what it
/// gets from the same recording in process (TranscriptReplayCheck), so the device adds nothing
/// and loses nothing on the way — what `cardctl simulate --replay` gives pcscd.
extension USBIntegration {
    @Suite("recorded readers on the emulated USB bus") struct ReplayedDevices {
        static let fixtures = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Fixtures")

        static let names: [String] = {
            let directory = fixtures.appendingPathComponent("transcripts").path
            let files = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
            return files.filter { $0.hasSuffix(".log") }.sorted()
        }()

        /// The transcripts with a descriptor dump (the others are parsed, not replayed).
        static let replayable: [String] = names.filter { name in
            (try? load(name)) != nil
        }

        static func load(_ name: String) throws -> (Transcript, ReaderProfile) {
            let log = fixtures.appendingPathComponent("transcripts").appendingPathComponent(name)
            let transcript = try TranscriptParser.parse(try String(contentsOf: log, encoding: .utf8))
            // The one rule the replay reader source and cardctl use (a header's stand-in dump too).
            let profile = try TranscriptReaderProfileLookup().profile(for: transcript, log: log.path)
            return (transcript, profile)
        }

        static let quiet: Logger = {
            var logger = Logger(label: "cardflow.replay-test")
            logger.logLevel = .critical
            return logger
        }()

        @Test("the corpus is there") func corpus() {
            #expect(Self.names.count >= 25)
            #expect(Self.replayable.count >= 25)
        }

        @Test(
            "a recorded reader over libusb answers CardFlow's driver as the in-process replay does",
            arguments: replayable)
        func sameAsInProcess(name: String) async throws {
            guard let testbed = try MockEnvironment.testbed() else { return }
            let (transcript, profile) = try Self.load(name)
            let descriptor = try CCIDClassDescriptor(
                bytes: profile.classDescriptorBytes(interface: transcript.header.interface))
            let inProcess = await TranscriptReplayCheck.run(transcript, descriptor: descriptor, logger: Self.quiet)

            let device = try testbed.attach(
                try ReplayedCCIDDevice(transcript: transcript, profile: profile, logger: Self.quiet))
            let context = try LibUSBContext()
            var configuration = CCIDDriverConfiguration()
            // Recorded read time-outs make the driver wait this long over USB (30 of them in the
            // corpus); the device's own answers take milliseconds.
            configuration.readTimeout = .seconds(1)
            let opened: (reader: USBReaderDescription, transport: LibUSBTransport, driver: CCIDDriver)
            do {
                opened = try context.openDriver(
                    .busAddress(bus: UInt8(device.busNumber), address: UInt8(device.deviceAddress)),
                    configuration: configuration)
            } catch {
                context.close()
                await device.unplug()
                throw error
            }
            let overUSB = await TranscriptReplayCheck.results(of: transcript, on: opened.driver)
            opened.transport.close()
            context.close()
            await device.unplug()
            device.close()

            let mismatches = await device.model.replay.mismatches
            #expect(mismatches.map(\.received) == inProcess.mismatches.map(\.received), "\(name)")
            #expect(await device.model.replay.matchedCommands == inProcess.matchedCommands, "\(name)")
            #expect(overUSB.count == inProcess.results.count, "\(name)")
            for (usb, local) in zip(overUSB, inProcess.results) {
                if case .otherError(let text) = local.outcome, text.contains("replay mismatch") {
                    // In process the mismatch fails the write; on the bus the reader stays silent.
                    #expect(usb.outcome == .failure(.readTimeout), "\(name): \(usb)")
                } else if local.outcome == .failure(.writeTimeout) {
                    // The emulated device takes every bulk-OUT transfer: a recorded write time-out
                    // becomes a reader that took the message and never answered.
                    #expect(usb.outcome == .failure(.readTimeout), "\(name): \(usb)")
                } else {
                    #expect(usb.outcome == local.outcome, "\(name): over USB \(usb) — in process \(local)")
                }
            }
        }
    }
}
