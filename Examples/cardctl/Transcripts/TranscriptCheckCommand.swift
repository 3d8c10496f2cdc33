import ArgumentParser
import CardFlow
import CardFlowCCIDProtocol
import CardFlowSimulator
import CardFlowSimulatorReaders
import CardFlowTranscripts
import Foundation

/// `cardctl transcript-check LOG…`: replays pcscd + libccid debug logs through CardFlow's CCID
/// driver (CardFlowTranscripts) and prints, per operation, what pcscd returned and what
/// CardFlow returns, and every frame the recording did not accept.
struct TranscriptCheckCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "transcript-check",
        abstract: "Replay pcscd + libccid debug logs through CardFlow's CCID driver and compare.",
        discussion: """
            Each LOG is a pcscd log taken with LIBCCID_ifdLogLevel=0x000F pcscd --foreground --debug --apdu, \
            as pasted (timestamps, colour codes and quoting are fine), optionally with the header lines of \
            Tests/Fixtures/transcripts (# descriptor:, # atr:, # interface:, # --- gap). The reader's CCID \
            descriptor comes from --reader-profile, else from the header's descriptor file or the first dump \
            with the log's VID:PID in --fixtures. Exit status 0 when every log replays identically, 3 when one \
            differs, 2 when a log cannot be read.
            """
    )

    @OptionGroup(title: "Global Options") var global: GlobalOptions

    @Option(
        name: .long,
        help: ArgumentHelp(
            "A reader descriptor dump for every LOG (Tests/Fixtures/ccid-readers format).", valueName: "PATH"))
    var readerProfile: String?

    @Option(
        name: .long,
        help: ArgumentHelp("The folder of reader descriptor dumps.", valueName: "DIR"))
    var fixtures: String = "Tests/Fixtures/ccid-readers"

    @Flag(
        name: .customLong("list-apdus"),
        help: ArgumentHelp(
            "Replay nothing: print each LOG's command APDUs, one a line as APDU EXPECTED (the recorded response, '-' when the log has none), '--' between segments, for a PC/SC client (Scripts/transcript-pcscd-check.sh)."
        ))
    var listAPDUs = false

    @Argument(help: ArgumentHelp("The logs to replay.", valueName: "LOG"))
    var logs: [String]

    func run() async throws {
        if listAPDUs {
            for path in logs { Self.listAPDUs(of: try TranscriptParser.parse(try Self.read(path))) }
            return
        }
        let logger = CommandLogging.logger(trace: global.trace)
        var differing: [String] = []
        for path in logs {
            let transcript = try TranscriptParser.parse(try Self.read(path))
            for problem in transcript.problems { Output.standardError("\(path): \(problem)") }
            let descriptor = try descriptor(for: transcript, log: path)
            let report = await TranscriptReplayCheck.run(transcript, descriptor: descriptor, logger: logger)
            Output.standardOutput(
                "\(path): \(transcript.header.readerName ?? "reader") — \(report.results.count) operation(s)")
            for result in report.results { Output.standardOutput("  \(result)") }
            for mismatch in report.mismatches { Output.standardOutput("  mismatch \(mismatch)") }
            if !report.standIns.isEmpty {
                Output.standardOutput("  stand-ins: \(report.standIns.map(\.rawValue).joined(separator: ", "))")
            }
            Output.standardOutput("  \(report.isIdentical ? "identical" : "differs")")
            if !report.isIdentical { differing.append(path) }
        }
        if !differing.isEmpty { throw TranscriptDifferences(logs: differing) }
    }

    private static func listAPDUs(of transcript: Transcript) {
        var segment: Int?
        for operation in TranscriptOperation.operations(of: transcript) {
            guard case .transmit(let apdu) = operation.request else { continue }
            if let segment, segment != operation.segment { Output.standardOutput("--") }
            segment = operation.segment
            let expected: String
            if case .bytes(let bytes) = operation.recordedOutcome, !bytes.isEmpty {
                expected = bytes.hexString
            } else {
                expected = "-"
            }
            Output.standardOutput("\(apdu.hexString) \(expected)")
        }
    }

    private static func read(_ path: String) throws -> String {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw InputError(description: "cannot read \(path)")
        }
        return String(decoding: data, as: UTF8.self)
    }

    /// The CCID class descriptor of the interface the log talks to.
    private func descriptor(for transcript: Transcript, log: String) throws -> CCIDClassDescriptor {
        let profile = try TranscriptReaderProfileLookup(explicitPath: readerProfile, searchDirectories: [fixtures])
            .profile(for: transcript, log: log)
        return try CCIDClassDescriptor(bytes: profile.classDescriptorBytes(interface: transcript.header.interface))
    }
}

/// Logs whose replay differs from what pcscd did.
struct TranscriptDifferences: CategorizedError, CustomStringConvertible {
    let logs: [String]
    var category: ErrorCategory { .reader }
    var description: String { "the replay differs from the recording in \(logs.joined(separator: ", "))" }
}
