@testable import CardFlow

/// A card that answers from a fixed script and records every command it receives.
actor ScriptedCardChannel: CardChannel {
    struct ScriptExhausted: Error, Equatable {
        let command: CommandAPDU
    }

    private var script: [ResponseAPDU]
    private let answerAfterScript: ResponseAPDU?
    private(set) var sent: [CommandAPDU] = []

    /// Answers with `script` in order, then with `answerAfterScript` forever if given, else throws.
    init(_ script: [ResponseAPDU], thenAlways answerAfterScript: ResponseAPDU? = nil) {
        self.script = script
        self.answerAfterScript = answerAfterScript
    }

    func transmit(_ command: CommandAPDU) async throws -> ResponseAPDU {
        sent.append(command)
        if !script.isEmpty { return script.removeFirst() }
        if let answerAfterScript { return answerAfterScript }
        throw ScriptExhausted(command: command)
    }

    /// The encodings of the commands received so far, for byte-exact checks.
    var sentHex: [String] {
        sent.map { $0.encoded().hexString }
    }
}
