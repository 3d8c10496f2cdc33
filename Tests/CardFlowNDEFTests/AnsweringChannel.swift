import CardFlow

/// A card channel whose answers come from a closure, counting commands and refusing more than
/// `budget` of them, so a client that loops on a card's answers fails instead of hanging.
actor AnsweringChannel: CardChannel {
    /// The client sent more commands than the test allows.
    struct BudgetExceeded: Error, CustomStringConvertible {
        let budget: Int
        var description: String { "more than \(budget) APDUs" }
    }

    private let answer: @Sendable (CommandAPDU, Int) -> ResponseAPDU
    private let budget: Int
    private(set) var sent: [CommandAPDU] = []

    /// `answer` gets each command and how many commands came before it.
    init(budget: Int = 2_000, answer: @escaping @Sendable (CommandAPDU, Int) -> ResponseAPDU) {
        self.budget = budget
        self.answer = answer
    }

    init(budget: Int = 2_000, answer: @escaping @Sendable (CommandAPDU) -> ResponseAPDU) {
        self.init(budget: budget) { command, _ in answer(command) }
    }

    func transmit(_ command: CommandAPDU) async throws -> ResponseAPDU {
        guard sent.count < budget else { throw BudgetExceeded(budget: budget) }
        sent.append(command)
        return answer(command, sent.count - 1)
    }

    var count: Int { sent.count }
}

extension ResponseAPDU {
    /// `data` followed by `90 00`.
    static func ok(_ data: [UInt8] = []) -> ResponseAPDU { ResponseAPDU(data: data, sw1: 0x90, sw2: 0x00) }
}
