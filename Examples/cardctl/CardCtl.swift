import ArgumentParser
import CardFlow

/// `cardctl`: talk to smart cards and NFC cards through CCID readers or the built-in simulator.
struct CardCtl: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cardctl",
        abstract: "Talk to smart cards and NFC cards through USB CCID readers or the built-in simulator.",
        discussion: """
            Exit codes: 0 ok, 1 card or status-word error, 2 usage or bad input, 3 reader or transport error, 130 cancelled.
            Global options (--reader, --json, --trace, --timeout, --cooldown, --retries, --wait, --socket) may come before or after the subcommand.
            """,
        version: CardFlowVersion.current,
        subcommands: [ListCommand.self, APDUCommand.self, ShellCommand.self, WatchCommand.self, KeyCommand.self,
                      SimulateCommand.self, NDEFCommand.self, ISO15693Command.self, DESFireCommand.self, TONCommand.self,
                      JobsCommand.self, FlowCommand.self, RelayCommand.self, ExportCommand.self]
    )
}
