import CCID

/// An error that can tell whether it means the card left the reader (lifted, swapped, or no
/// longer answering). Reader backends make their errors conform; every layer (sessions, flow
/// recovery, the relay, the daemon) asks ``Swift/Error/meansCardLost`` instead of matching one
/// backend's error cases itself.
public protocol CardLossClassifying: Error {
    /// True when the card is no longer there.
    var meansCardLost: Bool { get }
}

extension CCIDDriverError: CardLossClassifying {
    /// No card, a mute card, or a card the driver no longer counts as powered.
    public var meansCardLost: Bool {
        switch self {
        case .noCard, .cardMute, .cardNotPowered: true
        default: false
        }
    }
}

extension FlowError: CardLossClassifying {
    public var meansCardLost: Bool { underlying.meansCardLost }
}

extension Error {
    /// True when the error means the card is no longer there: the one classification every
    /// layer uses (see ``CardLossClassifying``).
    public var meansCardLost: Bool {
        (self as? any CardLossClassifying)?.meansCardLost ?? false
    }
}
