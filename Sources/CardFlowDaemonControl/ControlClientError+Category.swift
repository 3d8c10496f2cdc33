import CardFlow

extension ControlClientError: CategorizedError {
    /// cardd's socket is missing, closed or answered out of the protocol.
    public var category: ErrorCategory { .reader }
}
