import CardFlow

/// One progress event in a `--json` answer's `"events"` list: `{"event":NAME,…}` with the fields
/// that event has. Flow events and relay events (`RelayOutput.swift`) share the names and fields,
/// spelled here once.
struct EventOutput: Encodable, Sendable {
    enum Name: String, Encodable, Sendable {
        case waitingForCard, connected, stepStarted, stepFinished, retrying, cardLost, wrongCard, resumed
        case progress, completed, failed
        // Relay only.
        case admitted, syncing
    }

    let event: Name
    // The order here is the order of the keys in every event.
    var card: String?
    var aid: String?
    var index: Int?
    var total: Int?
    var name: String?
    var attempt: Int?
    var reason: String?
    var fraction: Double?
    var progress: Double?
    var message: String?

    init(event: Name) {
        self.event = event
    }

    init(_ event: FlowEvent) {
        switch event {
        case .waitingForCard: self.init(event: .waitingForCard)
        case .connected(let identity): self.init(event: .connected, card: identity)
        case .stepStarted(let index, let total, let name): self.init(event: .stepStarted, step: index, of: total, name)
        case .stepFinished(let index, let total, let name):
            self.init(event: .stepFinished, step: index, of: total, name)
        case .retrying(let index, let attempt, let reason):
            self.init(event: .retrying)
            self.index = index
            self.attempt = attempt
            self.reason = reason
        case .cardLost(let index):
            self.init(event: .cardLost)
            self.index = index
        case .wrongCard(let identity): self.init(event: .wrongCard, card: identity)
        case .resumed(let index):
            self.init(event: .resumed)
            self.index = index
        case .progress(let fraction):
            self.init(event: .progress)
            self.fraction = fraction
        case .completed: self.init(event: .completed)
        case .failed(let reason):
            self.init(event: .failed)
            self.reason = reason
        }
    }

    init(event: Name, card identity: CardIdentity) {
        self.init(event: event)
        card = "\(identity)"
    }

    private init(event: Name, step index: Int, of total: Int, _ name: String) {
        self.init(event: event)
        self.index = index
        self.total = total
        self.name = name
    }
}

/// A flow that failed, with `--json`: why, and every event it had until then.
struct FlowFailedOutput: Encodable {
    let ok = false
    let error: String
    let events: [EventOutput]
}
