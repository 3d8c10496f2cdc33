import CardFlow

// The categories of the simulator's errors: each is about what the user gave it.

extension SimulatorSpecificationError: CategorizedError {
    /// A `sim:` selector that does not parse.
    public var category: ErrorCategory { .usage }
}

extension SimulatorSetupError: CategorizedError {
    /// A simulator set-up the options do not allow.
    public var category: ErrorCategory { .usage }
}

extension ReaderProfileError: CategorizedError {
    /// A reader profile file that does not parse.
    public var category: ErrorCategory { .usage }
}
