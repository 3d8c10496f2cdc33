import Testing

@testable import CardFlow

/// Waits in session errors read as people say them (issue 35, item 7: the time a vpcd reader
/// waited is in the message).
@Suite("Session error wording")
struct SessionErrorWordingTests {
    @Test("waits are rounded to the millisecond and given in seconds")
    func waits() {
        #expect(
            SessionError.noCard(waited: .seconds(30)).description == "no card on the reader after waiting 30 seconds")
        #expect(SessionError.noCard(waited: .nanoseconds(299_860_102)).description.hasSuffix("waiting 0.3 seconds"))
        #expect(SessionError.noCard(waited: .zero).description.hasSuffix("waiting 0 seconds"))
        #expect(
            SessionError.cardDidNotReturn(waited: .milliseconds(1500)).description
                == "the card left and did not come back within 1.5 seconds")
    }
}
