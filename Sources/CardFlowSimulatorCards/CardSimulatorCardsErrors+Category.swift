import CardFlow

// The categories of the card models' errors: each is about a file the user gave.

extension CardStateError: CategorizedError {
    /// A card state file that does not load or save.
    public var category: ErrorCategory { .usage }
}

extension TONFactoryDataError: CategorizedError {
    /// A TON factory-data file that does not load.
    public var category: ErrorCategory { .usage }
}

extension APDURecordingError: CategorizedError {
    /// An APDU recording file that does not load.
    public var category: ErrorCategory { .usage }
}
