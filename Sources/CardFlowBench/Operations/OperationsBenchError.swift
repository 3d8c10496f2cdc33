import CardFlow

/// Why `bench ops` could not start or could not leave the card as it was.
public enum OperationsBenchError: Error, Sendable, Hashable, CustomStringConvertible, CardLossClassifying {
    /// The plan's numbers are out of range (the text says which).
    case invalidPlan(String)
    /// The DESFire bench application stayed on the card because it could not be deleted (the
    /// card was lost, usually: then `cardLoss` says how, and ``cardLoss`` reports it too).
    case benchApplicationLeft(reason: String, cardLoss: CardLoss?)

    /// How the card was lost when that is why the bench application stayed.
    public var cardLoss: CardLoss? {
        switch self {
        case .invalidPlan: nil
        case .benchApplicationLeft(_, let cardLoss): cardLoss
        }
    }

    public var description: String {
        switch self {
        case .invalidPlan(let reason): "invalid operations plan: \(reason)"
        case .benchApplicationLeft(let reason, _): reason
        }
    }
}
