import CardFlowCCID
import CardFlowCCIDProtocol
import Testing

@testable import CardFlow

/// One card-loss classification for every layer: backends conform their errors to
/// `CardLossClassifying`, everyone asks `error.cardLoss` / `error.meansCardLost`.
@Suite("Card loss classification")
struct CardLossTests {
    /// A backend that is not CCID (a network reader, PC/SC) says so through the protocol.
    struct OtherBackendError: CardLossClassifying {
        let cardLoss: CardLoss?
    }

    struct Unrelated: Error {}

    @Test func everyLayerAsksTheSameQuestion() {
        #expect(CCIDDriverError.noCard.cardLoss == .noCard)
        #expect(CCIDDriverError.cardMute(during: .xfrBlock).cardLoss == .notResponding)
        #expect(CCIDDriverError.cardMute(during: .iccPowerOn).cardLoss == .notActivated)
        #expect(CCIDDriverError.cardNotPowered(slot: 0).cardLoss == .notPowered)
        #expect(!CCIDDriverError.sequenceMismatch(expected: 1, received: 2, during: .xfrBlock).meansCardLost)
        #expect(OtherBackendError(cardLoss: .notResponding).meansCardLost)
        #expect(!OtherBackendError(cardLoss: nil).meansCardLost)
        #expect(!Unrelated().meansCardLost)
        #expect(!CancellationError().meansCardLost)
        // A failed flow step carries the reason.
        #expect(
            FlowError(stepIndex: 0, stepName: "write", underlying: OtherBackendError(cardLoss: .noCard)).cardLoss
                == .noCard)
        #expect(!FlowError(stepIndex: 0, stepName: "write", underlying: Unrelated()).meansCardLost)
        let boxed: any Error = CCIDDriverError.noCard
        #expect(boxed.meansCardLost)
    }
}
