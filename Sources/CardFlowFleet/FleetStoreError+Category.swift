import CardFlow

extension FleetStoreError: CategorizedError {
    /// A bad address, record or batch name: usage; the database failing or out of reach: the
    /// reader category (the equipment, not the card or the input).
    public var category: ErrorCategory {
        switch self {
        case .invalidAddress, .invalidRecord, .unknownBatch: .usage
        default: .reader
        }
    }
}
