import Foundation

@testable import CardFlowSimulator
@testable import CardFlowSimulatorCards
#if canImport(FuzzSupport)
import FuzzSupport
#endif

/// Simulated-card state files, for each persistent card model: a file that loads saves to one
/// that loads the same, and the loaded card answers commands without trapping.
enum CardStateFuzzing {
    /// Input: the model (first byte), the state file's JSON up to a NUL byte, then commands
    /// (a length byte and that many bytes each) sent to the loaded card.
    static func stateFile(_ bytes: [UInt8]) {
        var input = FuzzInput(bytes)
        let model = input.byte()
        let rest = input.rest()
        let json = Array(rest.prefix { $0 != 0 })
        var commands = FuzzInput(Array(rest.dropFirst(json.count + 1)))
        switch model % 6 {
        case 0: load(NDEFType2Tag.self, json, &commands)
        case 1: load(NDEFType4Tag.self, json, &commands)
        case 2: load(SimulatedISO15693Tag.self, json, &commands)
        case 3: load(ISO7816Card.self, json, &commands)
        case 4: load(DESFireCard.self, json, &commands)
        default: load(SimulatedTONCard.self, json, &commands)
        }
    }

    private static func load<Card: PersistentVirtualCard>(
        _ type: Card.Type, _ json: [UInt8], _ commands: inout FuzzInput
    ) {
        guard let envelope = try? JSONDecoder().decode(CardStateEnvelope<Card>.self, from: Data(json)) else { return }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        guard let saved = try? encoder.encode(envelope) else {
            fuzzCheck(false, "a loaded \(Card.persistentKind) card does not save")
            return
        }
        let reloaded = try? JSONDecoder().decode(CardStateEnvelope<Card>.self, from: saved)
        let savedAgain = reloaded.flatMap { try? encoder.encode($0) }
        fuzzCheck(savedAgain == saved, "a \(Card.persistentKind) state does not survive save/load")
        var card = envelope.card
        card.powerOn()
        while !commands.isEmpty {
            let answer = card.process(commands.take(Int(commands.byte())))
            fuzzCheck(
                answer.count >= 2 || Card.self == SimulatedISO15693Tag.self,
                "\(Card.persistentKind) answered \(answer.count) bytes")
        }
    }
}
