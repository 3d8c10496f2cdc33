/// How a card was lost, as an error that knows says it.
public enum CardLoss: Sendable, Hashable, CustomStringConvertible {
    /// No card on the reader.
    case noCard
    /// A card is there but did not answer being powered on: usually several cards in the field
    /// at once, else a card the reader cannot talk to.
    case notActivated
    /// The card stopped answering (lifted mid-exchange, or mute).
    case notResponding
    /// The backend no longer counts the card as powered (it was lifted and came back).
    case notPowered

    public var description: String {
        switch self {
        case .noCard: "no card"
        case .notActivated: "card not activated"
        case .notResponding: "card not responding"
        case .notPowered: "card not powered"
        }
    }
}

/// An error that can tell whether it means the card left the reader (lifted, swapped, or no
/// longer answering). Reader backends make their errors conform; every layer (sessions, flow
/// recovery, the relay, the daemon) asks ``Swift/Error/meansCardLost`` or
/// ``Swift/Error/cardLoss`` instead of matching one backend's error cases itself.
public protocol CardLossClassifying: Error {
    /// How the card was lost, nil when the error is about something else.
    var cardLoss: CardLoss? { get }
}

extension FlowError: CardLossClassifying {
    public var cardLoss: CardLoss? { underlying.cardLoss }
}

extension Error {
    /// How the card was lost when the error says so (see ``CardLossClassifying``), else nil.
    public var cardLoss: CardLoss? {
        (self as? any CardLossClassifying)?.cardLoss
    }

    /// True when the error means the card is no longer there: the one classification every
    /// layer uses.
    public var meansCardLost: Bool { cardLoss != nil }
}
