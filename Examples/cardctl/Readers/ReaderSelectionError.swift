import CardFlow

/// A selector that parsed but names no reader that is there.
enum ReaderSelectionError: CategorizedError, CustomStringConvertible {
    case noReader(String)
    /// Nothing chose a reader and no USB CCID reader is there (`detail`: why USB gave none).
    case noDefaultReader(detail: String?)
    /// `--socket` sends work to one of cardd's readers, and none was named.
    case noDaemonReader

    /// `--socket` without a reader is a usage error; a reader that is not there, a reader error.
    var category: ErrorCategory {
        if case .noDaemonReader = self { return .usage }
        return .reader
    }

    var description: String {
        switch self {
        case .noReader(let selector):
            "no reader matches '\(selector)' (is it plugged in? `cardctl --reader usb list` shows the USB CCID readers found)"
        case .noDefaultReader(let detail):
            """
            no USB CCID reader found\(detail.map { " (\($0))" } ?? ""), and no reader was chosen. Plug a reader in, or \
            choose one: --reader sim for the built-in simulator, --reader pcsc for readers pcscd serves, or set \
            \(ReaderChoice.environmentVariable) or "reader" in ~/.config/cardflow/cardctl.json. `cardctl doctor` tells \
            what is in the way.
            """
        case .noDaemonReader:
            "with --socket, name one of cardd's readers: --reader ID (`cardctl --socket PATH list` shows their ids)"
        }
    }
}
