import ArgumentParser
import CCID
import CardDaemonControl
import CardFleet
import CardFlow
import CardFlowCCID
import CardSimulator
import DESFire
import ISO15693
import NDEF
import StorageCards

/// cardctl's exit codes: 0 ok, 1 card/status error, 2 usage or bad input, 3 reader or
/// transport error, 130 cancelled.
enum ExitStatus: Int32 {
    case ok = 0
    case cardError = 1
    case usage = 2
    case readerError = 3
    case cancelled = 130

    static func of(_ error: any Error) -> ExitStatus {
        switch error {
        case is CancellationError: return .cancelled
        case let error as FlowError: return of(error.underlying)
        case is ISO15693Error, is NDEFTagError: return .cardError
        case let error as DESFireError:
            if case .invalidArgument = error { return .usage }
            return .cardError
        case let error as NTAG424Error:
            switch error {
            case .invalidArgument, .lrpNotSupported: return .usage
            default: return .cardError
            }
        case let error as NTAG424SUNError:
            if case .invalidKey = error { return .usage }
            return .cardError
        case is NTAG424SUNURLError: return .usage
        case let error as StorageCardError:
            switch error {
            case .invalidArgument, .blockOutOfRange, .plainWriteRefused, .trailerWouldLockSector, .unsupportedByReader,
                .ndefTooLarge:
                return .usage
            default: return .cardError
            }
        case is SUNReplayed: return .cardError
        case let error as NTAG424SUNReplayError:
            if case .notCounted = error { return .cardError }
            return .usage
        case let error as SessionError:
            switch error {
            case .noCard, .cardNotActivated, .cardDidNotReturn, .unverifiableStepInterrupted: return .cardError
            case .timedOut, .sessionClosed: return .readerError
            }
        case is CardStatusError, is APDUExchangeError, is CardChannelError, is ExpectedStatusMismatch: return .cardError
        case let error as CCIDDriverError:
            switch error {
            case .noCard, .cardMute, .t1Failure, .invalidATR: return .cardError
            case .transport(.cancelled, _): return .cancelled
            default: return .readerError
            }
        case is ReaderSelectorError: return .usage
        case is ControlClientError: return .readerError
        case let error as DaemonRequestError:
            return ["badRequest", "badJSON", "unknownOp", "unknownJob", "lineTooLong"].contains(error.code)
                ? .usage : .readerError
        case let error as ReaderSelectionError:
            if case .noDaemonReader = error { return .usage }
            return .readerError
        case is USBTransportError, is BenchReaderError: return .readerError
        case let error as FleetStoreError:
            switch error {
            case .invalidAddress, .invalidRecord, .unknownBatch: return .usage
            default: return .readerError
            }
        case is HexParseError, is APDUParseError, is APDULengthError, is SimulatorSpecificationError, is InputError,
            is ReaderProfileError, is CardStateError, is SimulatorSetupError, is KeyStoreError, is TONFactoryDataError,
            is NDEFDecodingError, is NDEFEncodingError, is CardctlConfigurationError:
            return .usage
        default: return .readerError
        }
    }
}

/// The card answered, but not with the status word `--expect-sw` asked for.
struct ExpectedStatusMismatch: Error, CustomStringConvertible {
    let expected: StatusWord
    let received: StatusWord
    let command: CommandAPDU
    var description: String { "expected SW \(expected.hexString) but the card answered \(received) to \(command)" }
}

/// Bad input on the command line or stdin.
struct InputError: Error, CustomStringConvertible {
    let description: String
}
