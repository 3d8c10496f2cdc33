import CCID
@testable import CardFlow
import Testing

/// One card-loss classification for every layer: backends conform their errors to
/// `CardLossClassifying`, everyone asks `error.meansCardLost`.
@Suite("Card loss classification")
struct CardLossTests {
    /// A backend that is not CCID (a network reader, PC/SC) says so through the protocol.
    struct OtherBackendError: CardLossClassifying {
        let cardGone: Bool
        var meansCardLost: Bool { cardGone }
    }

    struct Unrelated: Error {}

    @Test func everyLayerAsksTheSameQuestion() {
        #expect(CCIDDriverError.noCard.meansCardLost)
        #expect(CCIDDriverError.cardMute(during: .xfrBlock).meansCardLost)
        #expect(CCIDDriverError.cardNotPowered(slot: 0).meansCardLost)
        #expect(!CCIDDriverError.sequenceMismatch(expected: 1, received: 2, during: .xfrBlock).meansCardLost)
        #expect(OtherBackendError(cardGone: true).meansCardLost)
        #expect(!OtherBackendError(cardGone: false).meansCardLost)
        #expect(!Unrelated().meansCardLost)
        #expect(!CancellationError().meansCardLost)
        // A failed flow step carries the reason.
        #expect(FlowError(stepIndex: 0, stepName: "write", underlying: OtherBackendError(cardGone: true)).meansCardLost)
        #expect(!FlowError(stepIndex: 0, stepName: "write", underlying: Unrelated()).meansCardLost)
        let boxed: any Error = CCIDDriverError.noCard
        #expect(boxed.meansCardLost)
    }
}
