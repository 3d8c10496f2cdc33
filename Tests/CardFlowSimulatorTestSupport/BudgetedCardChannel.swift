import CardFlow
import CardFlowSimulatorCards

/// A card channel straight to a card model (no reader, no driver) that allows a session a
/// number of APDUs and a deadline, so a client that loops on a card's answers fails with the
/// seed instead of hanging.
///
/// Answers of fewer than two bytes become ``/CardFlow/CardChannelError/malformedResponse(_:instruction:)``,
/// as through ``/CardFlowCCID/CCIDCardChannel``. The card is powered on when the channel is made.
///
/// ```swift
/// let channel = BudgetedCardChannel(card: HostileCard(configuration: .init(seed: 9)), budget: 500, deadline: .seconds(5))
/// _ = try await channel.send(try CommandAPDU(hex: "00A4040007D2760000850101"))
/// ```
public actor BudgetedCardChannel: CardChannel {
    /// The session used more APDUs or more time than it was given.
    public struct LimitExceeded: Error, Sendable, Hashable, CustomStringConvertible {
        public enum Limit: Sendable, Hashable {
            case apdus(Int)
            case deadline(Duration)
        }

        public let limit: Limit
        /// The command that went over the limit (its header: no data, which may be secret).
        public let header: [UInt8]

        public var description: String {
            let what =
                switch limit {
                case .apdus(let budget): "more than \(budget) APDUs"
                case .deadline(let duration): "longer than \(duration)"
                }
            return
                "session took \(what) (at \(header.map { String($0, radix: 16, uppercase: true) }.joined(separator: " ")))"
        }
    }

    private var card: any VirtualCard
    private let budget: Int
    private let deadline: Duration
    private let started: ContinuousClock.Instant
    /// APDUs sent so far.
    public private(set) var apduCount = 0
    /// The limit the session went over, if it did: kept because a client may catch the error
    /// and throw one of its own instead.
    public private(set) var limitExceeded: LimitExceeded?

    public init(card: any VirtualCard, budget: Int, deadline: Duration) {
        var card = card
        card.powerOn()
        self.card = card
        self.budget = budget
        self.deadline = deadline
        started = .now
    }

    public func transmit(_ command: CommandAPDU) async throws -> ResponseAPDU {
        apduCount += 1
        let header = [command.cla, command.ins, command.p1, command.p2]
        if limitExceeded == nil, apduCount > budget {
            limitExceeded = LimitExceeded(limit: .apdus(budget), header: header)
        } else if limitExceeded == nil, ContinuousClock.now - started > deadline {
            limitExceeded = LimitExceeded(limit: .deadline(deadline), header: header)
        }
        if let limitExceeded { throw limitExceeded }
        var bytes = card.process(command.encoded())
        guard bytes.count >= 2 else { throw CardChannelError.malformedResponse(bytes, instruction: command.ins) }
        let sw2 = bytes.removeLast()
        let sw1 = bytes.removeLast()
        return ResponseAPDU(data: bytes, sw1: sw1, sw2: sw2)
    }

    /// The card as it is now (a wrapped model's state after the session, for instance).
    public var currentCard: any VirtualCard { card }
}
