import ArgumentParser
import CardFlow

/// `cardctl`: talk to smart cards and NFC cards through CCID readers or the built-in simulator.
struct CardCtl: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cardctl",
        abstract: "Talk to smart cards and NFC cards through USB CCID readers or the built-in simulator.",
        discussion: """
            Exit codes: 0 ok, 1 card or status-word error, 2 usage or bad input, 3 reader or transport error, 130 cancelled.
            Global options (-r/--reader, -j/--json, -v/--trace, --timeout, --cooldown, --retries, --wait, --socket, --protocol) may come before or after the subcommand.
            Without --reader: $CARDCTL_READER, else "reader" in $XDG_CONFIG_HOME/cardflow/cardctl.json, else the first USB CCID reader; --reader sim picks the built-in simulator.
            Shell completions: cardctl --generate-completion-script bash|zsh|fish.
            """,
        version: CardFlowVersion.current,
        subcommands: [
            ListCommand.self, IdentifyCommand.self, DoctorCommand.self, APDUCommand.self, ShellCommand.self,
            WatchCommand.self, SignalCommand.self, KeyCommand.self,
            SimulateCommand.self, SimulateUFRCommand.self, UFRReaderCommand.self, NDEFCommand.self,
            ISO15693Command.self, DESFireCommand.self,
            NTAG424Command.self,
            ClassicCommand.self, NTAGCommand.self, FeliCaCommand.self, TONCommand.self,
            JobsCommand.self, FlowCommand.self, RelayCommand.self, ExportCommand.self, FleetCommand.self,
            BenchCommand.self, TranscriptCheckCommand.self,
        ]
    )

    /// Parsed here from the whole command line, so they may precede the subcommand name; each
    /// subcommand's own `@OptionGroup var global` receives this value.
    @OptionGroup(title: "Global Options") var global: GlobalOptions
}
