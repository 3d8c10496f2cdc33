import CardFlow

/// What went wrong in a DESFire command the uFR reader ran itself (``UFRDESFire``). Link
/// failures stay ``UFRError``s.
///
/// ```swift
/// catch let error as UFRDESFireError where error.category == .card { … }
/// ```
public enum UFRDESFireError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A value the command cannot carry (a slot outside 0–15, an AID above 0xFFFFFF, a key of
    /// the wrong length).
    case invalidArgument(String)
    /// The reader reported a status other than success for the command.
    case failed(UFRCommandCode, UFRDESFireStatus)
    /// The reply held only the execution time: the reader found no card, or failed itself; the
    /// protocol does not say which (ufr.md §4).
    case noCardOrReaderError(UFRCommandCode)
    /// The reader refused to store a reader key (its COM error code: keys locked 0x76, slot out
    /// of range 0x07, …).
    case readerKeyRefused(UFRStatus)
    /// The reply does not have the layout the command's reply has.
    case malformedReply(UFRCommandCode, String)

    public var description: String {
        switch self {
        case .invalidArgument(let what): "invalid uFR DESFire argument: \(what)"
        case .failed(let code, let status): "the uFR reader's \(code) failed: \(status)"
        case .noCardOrReaderError(let code):
            "the uFR reader's \(code) failed: no card in the field, or a reader error (the reply does not say which)"
        case .readerKeyRefused(let status): "the uFR reader did not store the key: \(status)"
        case .malformedReply(let code, let what): "malformed reply from the uFR reader to \(code): \(what)"
        }
    }
}

extension UFRDESFireError: CategorizedError {
    /// Usage for arguments; the card for its own statuses (the card's DESFire status, a failed
    /// authentication, not a DESFire card, no card); the reader for the rest.
    public var category: ErrorCategory {
        switch self {
        case .invalidArgument: return .usage
        case .noCardOrReaderError: return .card
        case .failed(_, let status):
            if status.cardStatus != nil { return .card }
            let cardSide: Set<UFRDESFireStatus> = [
                .noCardDetected, .keyAuthenticationError, .cardCryptoError, .readerCardCommunicationError,
                .noISO14443Layer4Card, .wrongKeyType,
            ]
            return cardSide.contains(status) ? .card : .reader
        case .readerKeyRefused(let status): return status == .maxKeyIndexExceeded ? .usage : .reader
        case .malformedReply: return .reader
        }
    }
}

extension UFRDESFireError: CardLossClassifying {
    /// No card detected, or the card stopped answering the reader mid-command.
    public var cardLoss: CardLoss? {
        switch self {
        case .noCardOrReaderError, .failed(_, .noCardDetected): .noCard
        case .failed(_, .readerCardCommunicationError): .notResponding
        default: nil
        }
    }
}
