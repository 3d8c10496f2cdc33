import ArgumentParser
import Logging

/// Command-line companion of the VPCD target: talk to vicc or a phone as the reader, export a
/// simulated card to pcscd as the card, and measure APDU rates. Used by Scripts/vpcd-check.sh.
@main
struct VPCDTool: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "vpcdtool",
        abstract: "vsmartcard vpcd protocol: reader side (listen), card side (export), loopback rate (bench).",
        subcommands: [ListenCommand.self, ExportCommand.self, BenchCommand.self])
}

/// Options every subcommand shares.
struct CommonOptions: ParsableArguments {
    @Option(help: "Log level: trace (shows every APDU), debug, info, notice, warning, error.")
    var logLevel: Logger.Level = .warning

    func makeLogger() -> Logger {
        let level = logLevel
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
        return Logger(label: "vpcdtool")
    }
}

// Deliberate, and contained: vpcdtool is an executable, no other module sees this conformance.
// swift-format-ignore: AvoidRetroactiveConformances
extension Logger.Level: @retroactive ExpressibleByArgument {}
