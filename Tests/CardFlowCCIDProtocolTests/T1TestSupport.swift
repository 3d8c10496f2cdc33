import CardFlowCCIDProtocol
import CardFlowSimulator
import Testing

/// Appends an LRC computed here (not by the code under test) to a block's NAD, PCB, LEN and INF.
func withLRC(_ bytes: [UInt8]) -> [UInt8] {
    bytes + [bytes.reduce(0, ^)]
}

/// The block of a `.send` action, or nil.
func sentBlock(_ action: T1HostAction) -> [UInt8]? {
    if case .send(let block, _) = action { return block }
    return nil
}

/// A deterministic response of `length` bytes ending in 90 00, derived from `seed`.
func patternedResponse(length: Int, seed: UInt8 = 0) -> [UInt8] {
    precondition(length >= 2)
    return (0..<(length - 2)).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ Int(seed)) } + [0x90, 0x00]
}

/// A deterministic command APDU of `length` bytes.
func patternedCommand(length: Int) -> [UInt8] {
    (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 13 &+ 5) }
}

typealias SplitMix64 = SeededRandom

/// Connects a T1HostProtocol to a T1CardEndpoint block by block, like a TPDU reader would, with
/// optional faults on the wire in both directions.
struct T1Link {
    enum Fault: Equatable {
        case none
        /// One byte of the block changed (caught by LRC and CRC alike).
        case corrupt
        /// The block never arrives: the receiver times out.
        case drop
    }

    var host: T1HostProtocol
    var card: T1CardEndpoint
    /// Every block the host transmitted and every block the card transmitted, in order.
    var hostBlocks: [[UInt8]] = []
    var cardBlocks: [[UInt8]] = []
    /// bBWI values the host asked for, one per host block.
    var multipliers: [UInt8] = []
    /// Commands the card saw complete (a resynchronised command shows up again).
    var commandsSeenByCard: [[UInt8]] = []
    /// Multipliers the card asks for, one S(WTX request) each, before it answers.
    var plannedWaitingTimeExtensions: [UInt8] = []
    /// Faults by index into hostBlocks / cardBlocks.
    var hostBlockFaults: [Int: Fault] = [:]
    var cardBlockFaults: [Int: Fault] = [:]
    /// Probability of a random fault on any block, drawn from `generator`.
    var randomFaultRate = 0.0
    var generator = SplitMix64(seed: 1)
    var stepLimit = 10_000

    init(host: T1HostProtocol = T1HostProtocol(), card: T1CardEndpoint = T1CardEndpoint()) {
        self.host = host
        self.card = card
    }

    /// Runs one APDU exchange to its end.
    mutating func exchange(_ command: [UInt8], respond: ([UInt8]) -> [UInt8]) -> T1HostAction {
        drive(host.begin(command: command), respond: respond)
    }

    /// Runs IFSD negotiation to its end.
    mutating func negotiateIFSD(_ ifsd: Int) -> T1HostAction {
        drive(host.beginIFSDNegotiation(ifsd: ifsd)) { _ in [0x6F, 0x00] }
    }

    mutating func drive(_ first: T1HostAction, respond: ([UInt8]) -> [UInt8]) -> T1HostAction {
        var action = first
        var pendingResponse: [UInt8] = []
        var steps = 0
        while case .send(let block, let multiplier) = action {
            steps += 1
            guard steps <= stepLimit else {
                Issue.record("T=1 exchange did not end within \(stepLimit) blocks")
                return action
            }
            hostBlocks.append(block)
            multipliers.append(multiplier)
            guard let delivered = applyFault(hostBlockFaults[hostBlocks.count - 1], to: block) else {
                action = host.timeoutOccurred()
                continue
            }
            let reply: [UInt8]
            switch card.receive(delivered) {
            case .send(let cardBlock):
                reply = cardBlock
            case .commandComplete(let command):
                commandsSeenByCard.append(command)
                pendingResponse = respond(command)
                reply = answerOrExtend(pendingResponse)
            case .waitingTimeExtensionGranted:
                reply = answerOrExtend(pendingResponse)
            }
            cardBlocks.append(reply)
            guard let back = applyFault(cardBlockFaults[cardBlocks.count - 1], to: reply) else {
                action = host.timeoutOccurred()
                continue
            }
            action = host.receive(back)
        }
        return action
    }

    private mutating func answerOrExtend(_ response: [UInt8]) -> [UInt8] {
        if plannedWaitingTimeExtensions.isEmpty {
            return card.respond(with: response)
        }
        return card.requestWaitingTimeExtension(multiplier: plannedWaitingTimeExtensions.removeFirst())
    }

    private mutating func applyFault(_ planned: Fault?, to block: [UInt8]) -> [UInt8]? {
        var fault = planned ?? .none
        if fault == .none, randomFaultRate > 0, Double.random(in: 0..<1, using: &generator) < randomFaultRate {
            fault = Bool.random(using: &generator) ? .corrupt : .drop
        }
        switch fault {
        case .none:
            return block
        case .drop:
            return nil
        case .corrupt:
            var corrupted = block
            let index = Int.random(in: 0..<corrupted.count, using: &generator)
            corrupted[index] ^= UInt8.random(in: 1...0xFF, using: &generator)
            return corrupted
        }
    }
}
