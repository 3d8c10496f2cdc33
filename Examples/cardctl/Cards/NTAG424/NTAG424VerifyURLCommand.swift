import ArgumentParser
import CardFlow
import CardFlowDESFire
import Foundation

extension NTAG424Command {
    /// `cardctl ntag424 verify-url`: a server's check of a tapped SUN URL, with replay detection.
    struct VerifyURL: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "verify-url",
            abstract:
                "Verify a tapped SUN URL as a server does, and refuse a replay (a read counter not above the last one).",
            discussion: """
                Parameters found by name: e, picc_data or picc (PICCData); c, cmac or mac (SDMMAC); enc; uid and ctr \
                for a plain mirror; --picc-param and --mac-param name others. Accepted counters are kept per UID in --counters (default \
                $XDG_STATE_HOME/cardflow/sun-counters.json or ~/.local/state/cardflow/sun-counters.json); \
                --no-replay-check skips that. Exit 0: valid and new; 1: forged, or replayed; 2: bad input.
                """)
        @OptionGroup(title: "Global Options") var global: GlobalOptions
        @Argument(help: "The URL the tag gave.") var url: String
        @Option(name: .customLong("meta-key"), help: ArgumentHelp("SDMMetaReadKey in hex.", valueName: "HEX"))
        var metaHex: String?
        @Option(
            name: .customLong("meta-key-slot"),
            help: ArgumentHelp("SDMMetaReadKey from key-store slot N.", valueName: "N"))
        var metaSlot: Int?
        @Option(name: .customLong("file-key"), help: ArgumentHelp("SDMFileReadKey in hex.", valueName: "HEX"))
        var fileHex: String?
        @Option(
            name: .customLong("file-key-slot"),
            help: ArgumentHelp("SDMFileReadKey from key-store slot N.", valueName: "N"))
        var fileSlot: Int?
        @Option(
            name: .customLong("key-store"),
            help: ArgumentHelp("Key store file for the -slot options.", valueName: "PATH"))
        var keyStore: String?
        @Option(
            name: .customLong("picc-param"),
            help: ArgumentHelp("The PICCData parameter's name, if unusual.", valueName: "NAME"))
        var piccParameter: String?
        @Option(
            name: .customLong("mac-param"),
            help: ArgumentHelp("The SDMMAC parameter's name, if unusual.", valueName: "NAME"))
        var macParameter: String?
        @Option(help: ArgumentHelp("The file of accepted read counters.", valueName: "PATH")) var counters: String?
        @Flag(name: .customLong("no-replay-check"), help: "Verify only; do not compare or store the counter.")
        var noReplayCheck = false

        func run() async throws {
            let parameters = try NTAG424SUNURLParameters(url: url, piccDataName: piccParameter, macName: macParameter)
            let verifier = try NTAG424SUNVerifier(
                metaReadKey: try await key(hex: metaHex, slot: metaSlot, option: "--meta-key").bytes,
                fileReadKey: try await key(hex: fileHex, slot: fileSlot, option: "--file-key").bytes)
            let message = try verifier.verify(parameters)
            var verdict: NTAG424SUNReplayGuard.Verdict?
            if !noReplayCheck {
                let path = try counters ?? Self.defaultCounterPath()
                verdict = try await NTAG424SUNReplayGuard(path: path).accept(message)
            }
            let uid = message.uid?.hexString ?? ""
            let counter = message.readCounter.map(String.init) ?? "null"
            var replayedAfter: UInt32?
            if case .replayed(_, let last) = verdict { replayedAfter = last }
            if global.json {
                try Output.json(
                    NTAG424Output.URLVerified(
                        uid: uid, readCounter: message.readCounter, replayChecked: verdict != nil,
                        replayed: replayedAfter != nil, lastCounter: replayedAfter))
            } else if let replayedAfter {
                Output.standardOutput("replayed: UID \(uid), read counter \(counter) is not above \(replayedAfter)")
            } else {
                Output.standardOutput("valid: UID \(uid), read counter \(counter)")
            }
            if let replayedAfter {
                throw SUNReplayed(counter: message.readCounter ?? 0, last: replayedAfter)
            }
        }

        private func key(hex: String?, slot: Int?, option: String) async throws -> DESFireKey {
            guard
                let key = try await DESFireKeyOptions.resolve(
                    hex: hex, ascii: nil, slot: slot, type: "aes", store: keyStore, option: option)
            else { throw InputError(description: "give \(option) HEX or \(option)-slot N") }
            return key
        }

        /// `$XDG_STATE_HOME/cardflow/sun-counters.json`, or under `~/.local/state`; the directory is created.
        static func defaultCounterPath() throws -> String {
            let environment = ProcessInfo.processInfo.environment
            let base =
                environment["XDG_STATE_HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil }
                ?? (environment["HOME"] ?? NSHomeDirectory()) + "/.local/state"
            let directory = base + "/cardflow"
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            return directory + "/sun-counters.json"
        }
    }
}

/// A SUN URL that verifies but was seen before (exit status 1).
struct SUNReplayed: CategorizedError, CustomStringConvertible {
    let counter: UInt32
    let last: UInt32
    var category: ErrorCategory { .card }
    var description: String { "replayed SUN message: read counter \(counter) is not above the last accepted \(last)" }
}
