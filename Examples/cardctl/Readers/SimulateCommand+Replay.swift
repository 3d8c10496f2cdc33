import ArgumentParser
import CardFlowSimulatorReaders
import CardFlowSimulatorUSB
import CardFlowTranscripts
import Foundation
import Logging

/// `cardctl simulate --replay LOG -- COMMAND`: the emulated reader is a recording.
extension SimulateCommand {
    func runReplay(log: String, logger: Logger) async throws {
        guard let data = FileManager.default.contents(atPath: log) else {
            throw InputError(description: "cannot read \(log)")
        }
        let transcript = try TranscriptParser.parse(String(decoding: data, as: UTF8.self))
        for problem in transcript.problems { Output.standardError("\(log): \(problem)") }
        let profile = try TranscriptReaderProfileLookup(explicitPath: readerProfile, searchDirectories: [fixtures])
            .profile(for: transcript, log: log)
        let model = try ReplayedCCIDDevice(transcript: transcript, profile: profile, logger: logger)

        let testbed = try USBTestbed.shared()
        let device = try testbed.attach(model, logger: logger)
        let status: Int32
        do {
            status = try await Self.runChild(command, environment: Self.childEnvironment(testbed))
        } catch {
            device.close()
            throw error
        }
        await device.unplug()
        device.close()
        await Self.report(model.replay, log: log)
        throw ExitCode(status)
    }

    /// What the recording accepted, on standard error: COMMAND's own output stays its own.
    static func report(_ replay: ReplayUSBTransport, log: String) async {
        let mismatches = await replay.mismatches
        let standIns = await replay.standIns
        var lines = [
            "cardctl simulate: replay of \(log): \(await replay.matchedCommands) command(s) matched the recording, "
                + "\(mismatches.count) did not"
        ]
        lines += mismatches.map { "  mismatch \($0)" }
        if !standIns.isEmpty { lines.append("  stand-ins: \(standIns.map(\.rawValue).joined(separator: ", "))") }
        for line in lines { Output.standardError(line) }
    }
}
