import CardFlow

extension ISO15693Error: CategorizedError {
    /// The tag refused or answered out of its rules.
    public var category: ErrorCategory { .card }
}
