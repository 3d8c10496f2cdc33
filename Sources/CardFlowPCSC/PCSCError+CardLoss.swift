import CardFlow
import CardFlowPCSCLite

extension PCSCError: CardLossClassifying {
    /// From the `SCARD_` code: no card, a card that did not answer its power-on, a card that
    /// left or stopped answering, a card someone else reset or powered down.
    public var cardLoss: CardLoss? {
        switch code {
        case .noSmartcard?: .noCard
        case .unresponsiveCard?: call == .connect ? .notActivated : .notResponding
        case .removedCard?: call == .connect ? .noCard : .notResponding
        case .resetCard?, .unpoweredCard?: .notPowered
        default: nil
        }
    }
}
