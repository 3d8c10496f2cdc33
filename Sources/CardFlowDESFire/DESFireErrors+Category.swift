import CardFlow

// The categories of the DESFire and NTAG 424 errors.

extension DESFireError: CategorizedError {
    /// An invalid argument: usage; the rest: the card.
    public var category: ErrorCategory {
        if case .invalidArgument = self { return .usage }
        return .card
    }
}

extension NTAG424Error: CategorizedError {
    /// An invalid argument or LRP asked for: usage; the rest: the card.
    public var category: ErrorCategory {
        switch self {
        case .invalidArgument, .lrpNotSupported: .usage
        default: .card
        }
    }
}

extension NTAG424SUNError: CategorizedError {
    /// A key that does not fit: usage; a message that does not verify: the card.
    public var category: ErrorCategory {
        if case .invalidKey = self { return .usage }
        return .card
    }
}

extension NTAG424SUNURLError: CategorizedError {
    /// A URL without the SUN parameters asked for.
    public var category: ErrorCategory { .usage }
}

extension NTAG424SUNReplayError: CategorizedError {
    /// A counter that did not advance: the card; a replay file that does not load: usage.
    public var category: ErrorCategory {
        if case .notCounted = self { return .card }
        return .usage
    }
}
