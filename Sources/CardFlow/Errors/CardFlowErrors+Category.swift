// The categories of CardFlow's own errors.

extension FlowError: CategorizedError {
    /// The category of the step's error.
    public var category: ErrorCategory { underlying.errorCategory }
}

extension SessionError: CategorizedError {
    /// No card, a card that did not activate or return, or an unverifiable step: the card;
    /// a time-out or a closed session: the reader.
    public var category: ErrorCategory {
        switch self {
        case .noCard, .cardNotActivated, .cardDidNotReturn, .unverifiableStepInterrupted: .card
        case .timedOut, .sessionClosed: .reader
        }
    }
}

extension CardStatusError: CategorizedError {
    /// The card answered with a failing status word.
    public var category: ErrorCategory { .card }
}

extension APDUExchangeError: CategorizedError {
    /// The card's answers broke the exchange's rules.
    public var category: ErrorCategory { .card }
}

extension CardChannelError: CategorizedError {
    /// The card's answer could not be a response APDU.
    public var category: ErrorCategory { .card }
}

extension HexParseError: CategorizedError {
    /// Bad hex input.
    public var category: ErrorCategory { .usage }
}

extension APDUParseError: CategorizedError {
    /// Bad APDU input.
    public var category: ErrorCategory { .usage }
}

extension APDULengthError: CategorizedError {
    /// An APDU field too long for its encoding.
    public var category: ErrorCategory { .usage }
}

extension KeyStoreError: CategorizedError {
    /// A key slot, secret or key-store file that does not fit.
    public var category: ErrorCategory { .usage }
}

extension ReaderSelectorError: CategorizedError {
    /// A selector no source takes.
    public var category: ErrorCategory { .usage }
}

extension ReaderBackendUnavailable: CategorizedError {
    /// The backend (USB, pcscd) is out of reach.
    public var category: ErrorCategory { .reader }
}
