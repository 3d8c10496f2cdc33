import CardFlow

/// What a running relay reports on ``RelayRun/progress``.
public enum RelayEvent: Sendable, Hashable, CustomStringConvertible {
    /// No card (yet, or again): put the card on the reader.
    case waitingForCard
    /// The card passed the gate (its application answered); the service is being contacted.
    case admitted(CardIdentity, aid: [UInt8])
    /// The sync runs; the fraction is the service's latest progress (nil before it sent any).
    case syncing(Double?)
    /// The card left mid-sync; the service was told.
    case cardLost
    /// Another card is on the reader; it is not touched, the relay keeps waiting for its card.
    case wrongCard(CardIdentity)
    /// The card is back; the service was told it was reset.
    case resumed
    case completed(message: String?)
    case failed(String)

    public var description: String {
        switch self {
        case .waitingForCard: "waiting for card"
        case .admitted(let identity, let aid): "\(identity) admitted (application \(aid.hexString))"
        case .syncing(let fraction):
            fraction.map { "syncing \(Int(($0 * 100).rounded()))%" } ?? "syncing"
        case .cardLost: "card lost; service told"
        case .wrongCard(let identity): "wrong card (\(identity)); waiting for the card being synced"
        case .resumed: "card back; service told it was reset"
        case .completed(let message): message.map { "completed: \($0)" } ?? "completed"
        case .failed(let reason): "failed: \(reason)"
        }
    }
}
