import CardFlow

/// What went wrong talking to a uFR reader or its card. Each case says its category
/// (``/CardFlow/CategorizedError``) and whether it means the card left
/// (``/CardFlow/CardLossClassifying``), as the CCID backend's errors do, so sessions, flows and
/// recovery treat a card lifted from a uFR reader as one lifted from any other reader.
///
/// ```swift
/// catch let error as UFRError where error.meansCardLost { … wait for the card … }
/// ```
public enum UFRError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The link could not be opened.
    case connectionFailed(endpoint: String, reason: String)
    /// The link closed (the reader went away, the connection dropped).
    case linkClosed(endpoint: String, reason: String?)
    /// Bytes could not be sent.
    case sendFailed(endpoint: String, reason: String)
    /// No answer to the command in time (after every attempt the link allows).
    case timedOut(UFRCommandCode, after: Duration)
    /// The answer to the command was not a well-formed frame.
    case corruptReply(UFRCommandCode, UFRFrameError)
    /// The reader answered the command with an ERR packet.
    case readerError(UFRCommandCode, UFRStatus)
    /// The reader's answer does not fit the command (a missing EXT, a wrong length).
    case unexpectedReply(UFRCommandCode, String)
    /// The card does not speak ISO 14443-4, so APDUs cannot reach it through APDU_TRANSCEIVE.
    case notISODEP(UFRCardType)
    /// No card session: the card was not powered on, or was lost since.
    case cardNotPowered
    /// A command APDU longer than one APDU_TRANSCEIVE frame carries (254 bytes).
    case commandTooLong(Int)

    public var description: String {
        switch self {
        case .connectionFailed(let endpoint, let reason): "cannot reach the uFR reader at \(endpoint): \(reason)"
        case .linkClosed(let endpoint, let reason):
            "the link to the uFR reader at \(endpoint) closed" + (reason.map { ": \($0)" } ?? "")
        case .sendFailed(let endpoint, let reason): "cannot send to the uFR reader at \(endpoint): \(reason)"
        case .timedOut(let code, let after): "no answer from the uFR reader to \(code) within \(after)"
        case .corruptReply(let code, let error): "corrupt answer from the uFR reader to \(code): \(error)"
        case .readerError(let code, let status): "the uFR reader failed \(code): \(status)"
        case .unexpectedReply(let code, let what): "unexpected answer from the uFR reader to \(code): \(what)"
        case .notISODEP(let type): "the card (\(type)) does not speak ISO 14443-4; APDUs cannot reach it"
        case .cardNotPowered: "no card session on the uFR reader (the card was lost or never powered)"
        case .commandTooLong(let count): "a \(count)-byte command APDU does not fit one uFR frame (254 bytes)"
        }
    }
}

extension UFRError: CardLossClassifying {
    /// NO_CARD before a session (no card); an APDU that failed or went unanswered, NO_CARD
    /// included (the card stopped answering: lifted mid-exchange); a session already lost (not
    /// powered). Link failures are not card losses.
    public var cardLoss: CardLoss? {
        switch self {
        case .readerError(.apduTransceive, let status) where Self.apduLossStatuses.contains(status): .notResponding
        case .readerError(_, .noCard): .noCard
        case .timedOut(.apduTransceive, _): .notResponding
        case .cardNotPowered: .notPowered
        default: nil
        }
    }

    /// ERR codes after APDU_TRANSCEIVE that mean the card is gone: which one a reader sends for
    /// a lifted card is not documented (ufr.md §7.1 item 4), so every card-side failure counts.
    static let apduLossStatuses: Set<UFRStatus> = [.noCard, .communicationError, .apduTransceiveError]
}

extension UFRError: CategorizedError {
    /// The card (lost, not ISO-DEP, refusing); usage (an APDU too long); the reader for the
    /// link and the reader's own failures.
    public var category: ErrorCategory {
        if cardLoss != nil { return .card }
        switch self {
        case .notISODEP: return .card
        case .commandTooLong: return .usage
        default: return .reader
        }
    }
}
