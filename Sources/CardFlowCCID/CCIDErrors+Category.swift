import CardFlow
import CardFlowCCIDProtocol

// The CCID driver sits below CardFlow and knows nothing of it; this backend module is where its
// errors learn CardFlow's categories, as they learn its card-loss classification.

extension CCIDDriverError: CategorizedError {
    /// No card, a mute card, a T=1 failure or a bad ATR: the card; a cancelled transfer:
    /// cancelled; the rest: the reader.
    public var category: ErrorCategory {
        switch self {
        case .noCard, .cardMute, .t1Failure, .invalidATR: .card
        case .transport(.cancelled, _): .cancelled
        default: .reader
        }
    }
}

extension USBTransportError: CategorizedError {
    /// The USB link to the reader.
    public var category: ErrorCategory { .reader }
}
