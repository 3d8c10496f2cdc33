import CardFlow
import CardFlowVPCDProtocol

extension VPCDError: CardLossClassifying {
    /// No card side connected; the connection ended (the card left); no answer in time (the
    /// card side is mute: at power-on it was not activated).
    public var cardLoss: CardLoss? {
        switch self {
        case .noCard: .noCard
        case .cardLost(.powerOn?, _): .noCard
        case .cardLost: .notResponding
        case .timedOut(.powerOn, _): .notActivated
        case .timedOut: .notResponding
        default: nil
        }
    }
}
