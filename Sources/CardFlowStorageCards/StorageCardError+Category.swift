import CardFlow

extension StorageCardError: CategorizedError {
    /// What the caller asked wrongly (an argument, a block or page off the card, a refused plain
    /// write, a locking trailer, a route the reader lacks, an NDEF message too large): usage; the
    /// rest: the card.
    public var category: ErrorCategory {
        switch self {
        case .invalidArgument, .blockOutOfRange, .pageOutOfRange, .plainWriteRefused, .trailerWouldLockSector,
            .unsupportedByReader, .ndefTooLarge:
            .usage
        default: .card
        }
    }
}
