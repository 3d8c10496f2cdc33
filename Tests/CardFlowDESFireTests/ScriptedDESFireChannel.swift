import CardFlow

/// A card that answers from a fixed script of hex responses and records every command.
actor ScriptedDESFireChannel: CardChannel {
    struct ScriptExhausted: Error {}
    private var script: [ResponseAPDU]
    private(set) var sent: [CommandAPDU] = []

    init(_ responses: [String]) {
        script = responses.map { try! ResponseAPDU(hex: $0) }
    }

    func transmit(_ command: CommandAPDU) async throws -> ResponseAPDU {
        sent.append(command)
        guard !script.isEmpty else { throw ScriptExhausted() }
        return script.removeFirst()
    }

    var sentHex: [String] { sent.map { $0.encoded().hexString } }
    var remaining: Int { script.count }
}

/// Hex to bytes (spaces allowed).
func bytes(_ hex: String) -> [UInt8] { try! [UInt8](hex: hex) }

/// Uppercase hex without spaces.
func compact(_ hex: String) -> String { hex.filter { !$0.isWhitespace }.uppercased() }

/// A fixed RndA source.
func fixedRandom(_ hex: String) -> @Sendable (Int) -> [UInt8] {
    let value = bytes(hex)
    return { _ in value }
}
