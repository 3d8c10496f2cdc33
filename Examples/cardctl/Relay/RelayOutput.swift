import CardFlow
import CardFlowRelay

/// What `relay` prints with `--json`: the sync's outcome with every event it had.
enum RelayOutput {
    /// The service completed the sync.
    struct Synced: Encodable {
        let ok = true
        let uid: String
        let atr: String
        let apdus: Int
        let resumes: Int
        /// The service's closing message, when it sent one.
        let message: String?
        let events: [EventOutput]
    }

    /// The sync failed: the error's name and its description.
    struct Failed: Encodable {
        let ok = false
        let error: String
        let reason: String
        let events: [EventOutput]
    }
}

extension EventOutput {
    init(_ event: RelayEvent) {
        switch event {
        case .waitingForCard: self.init(event: .waitingForCard)
        case .admitted(let identity, let aid):
            self.init(event: .admitted, card: identity)
            self.aid = aid.hexString
        case .syncing(let fraction):
            self.init(event: .syncing)
            progress = fraction
        case .cardLost: self.init(event: .cardLost)
        case .wrongCard(let identity): self.init(event: .wrongCard, card: identity)
        case .resumed: self.init(event: .resumed)
        case .completed(let message):
            self.init(event: .completed)
            self.message = message
        case .failed(let reason):
            self.init(event: .failed)
            self.reason = reason
        }
    }
}
