import CardFlow
import CardFlowCCIDProtocol

// The CCID driver sits below CardFlow and knows nothing of it; this backend module is where its
// errors learn CardFlow's card-loss classification.
extension CCIDDriverError: CardLossClassifying {
    /// No card; a card mute at power-on (not activated) or later (not responding); a card the
    /// driver no longer counts as powered.
    public var cardLoss: CardLoss? {
        switch self {
        case .noCard: .noCard
        case .cardMute(during: .iccPowerOn): .notActivated
        case .cardMute: .notResponding
        case .cardNotPowered: .notPowered
        default: nil
        }
    }
}
