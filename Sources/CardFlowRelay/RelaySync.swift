import CardFlow
import Logging

/// The card side of one sync: the gate, then the service's APDUs on the card, in order. Runs as
/// the body of a one-step flow; when the card leaves, the flow waits for the same card and runs
/// the body again, which tells the service the card was reset and carries on.
actor RelaySync {
    private let configuration: RelayConfiguration
    private let logger: Logger
    private let events: AsyncStream<RelayEvent>.Continuation
    private var link: RelayLink?
    private var nextID = 1
    private(set) var apduCount = 0
    private(set) var resumes = 0
    private(set) var identity: CardIdentity?
    private var interrupted = false

    init(configuration: RelayConfiguration, logger: Logger, events: AsyncStream<RelayEvent>.Continuation) {
        self.configuration = configuration
        self.logger = logger
        self.events = events
    }

    /// The flow step: returns the service's closing message when it says done.
    func run(on session: CardSession) async throws -> String? {
        let link: RelayLink
        if let existing = self.link {
            link = existing
            if interrupted {
                // The card was power-cycled: the service must redo selection and authentication.
                interrupted = false
                resumes += 1
                let identity = await session.identity
                await link.send(.cardReset(uid: identity.uid, atr: identity.atr))
                events.yield(.resumed)
            }
        } else {
            let (aid, answer) = try await gate(session)
            let identity = await session.identity
            self.identity = identity
            events.yield(.admitted(identity, aid: aid))
            link = try await RelayLink.open(configuration, logger: logger)
            self.link = link
            await link.send(
                .hello(
                    uid: identity.uid, atr: identity.atr, aid: aid, selectAnswer: answer,
                    limits: configuration.limits))
            events.yield(.syncing(nil))
        }
        while true {
            switch try await link.next() {
            case .apdu(let id, let command):
                guard id == nextID else {
                    throw RelayError.protocolViolation(.unexpectedID(expected: nextID, received: id))
                }
                nextID += 1
                apduCount += 1
                guard apduCount <= configuration.limits.maxAPDUs else {
                    throw RelayError.tooManyAPDUs(limit: configuration.limits.maxAPDUs)
                }
                let answer: ResponseAPDU
                do {
                    answer = try await session.transmit(command)
                } catch  where error.meansCardLost {
                    interrupted = true
                    await link.send(.cardLost(id: id))
                    events.yield(.cardLost)
                    throw error
                }
                await link.send(.response(id: id, answer: answer.encoded()))
            case .progress(let fraction):
                await session.reportProgress(fraction)
            case .done(let message):
                return message
            case .failed(let reason):
                throw RelayError.serviceFailed(reason: reason)
            }
        }
    }

    /// SELECTs the configured applications in order; the first that answers admits the card.
    private func gate(_ session: CardSession) async throws -> (aid: [UInt8], answer: [UInt8]) {
        for aid in configuration.aids {
            let select = try CommandAPDU(cla: 0x00, ins: 0xA4, p1: 0x04, p2: 0x00, data: aid, le: 256)
            let answer = try await session.transmit(select)
            if answer.statusWord.isSuccess || answer.sw1 == 0x61 { return (aid, answer.encoded()) }
        }
        throw RelayError.unsupportedCard(triedAIDs: configuration.aids)
    }

    /// Ends the conversation with the service: `final` tells it why (nil after done/failed).
    func finish(final: RelayClientMessage?) async {
        guard let link else { return }
        self.link = nil
        await link.close(final: final)
    }

    /// Whether the service was contacted (false for a card refused by the gate).
    var contactedService: Bool { identity != nil }
}
