import CardFlow

/// cardctl's exit codes: 0 ok, 1 card/status error, 2 usage or bad input, 3 reader or
/// transport error, 130 cancelled. They follow from the error's own category (every layer's
/// errors say theirs), so this file names no card family and no backend.
enum ExitStatus: Int32 {
    case ok = 0
    case cardError = 1
    case usage = 2
    case readerError = 3
    case cancelled = 130

    static func of(_ error: any Error) -> ExitStatus {
        switch error.errorCategory {
        case .usage: .usage
        case .card: .cardError
        case .reader: .readerError
        case .cancelled: .cancelled
        }
    }
}

/// The card answered, but not with the status word `--expect-sw` asked for.
struct ExpectedStatusMismatch: CategorizedError, CustomStringConvertible {
    let expected: StatusWord
    let received: StatusWord
    let command: CommandAPDU
    var category: ErrorCategory { .card }
    var description: String { "expected SW \(expected.hexString) but the card answered \(received) to \(command)" }
}

/// Bad input on the command line or stdin.
struct InputError: CategorizedError, CustomStringConvertible {
    let description: String
    var category: ErrorCategory { .usage }
}
