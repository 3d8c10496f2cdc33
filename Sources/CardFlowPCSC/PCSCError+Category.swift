import CardFlow
import CardFlowPCSCLite

// libpcsclite's errors learn CardFlow's categories here, beside their card-loss classification.

extension PCSCError: CategorizedError {
    /// The card's trouble as pcsc-lite names it (no card, removed, reset, unpowered, unresponsive,
    /// unsupported, a bad ATR): the card; a cancelled call: cancelled; an argument pcsc-lite
    /// cannot take: usage; pcscd, the reader or the link: the reader.
    public var category: ErrorCategory {
        if case .invalidArgument = self { return .usage }
        guard let code else { return .reader }
        if code == .cancelled { return .cancelled }
        if cardLoss != nil || [.unsupportedCard, .cardUnsupported, .invalidATR].contains(code) { return .card }
        return .reader
    }
}
