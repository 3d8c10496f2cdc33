import CardFlow

/// Sending with TON error mapping, shared by the applet and CoinManager clients.
enum TONExchange {
    static func send(_ command: CommandAPDU, over channel: any CardChannel) async throws -> [UInt8] {
        let response = try await channel.transmit(command)
        guard response.statusWord.isSuccess else {
            throw TONError.card(status: response.statusWord, instruction: instruction(of: command), command: command)
        }
        return response.data
    }

    /// The applet instruction of `command` (nil for CoinManager commands).
    static func instruction(of command: CommandAPDU) -> TONInstruction? {
        if command.cla == 0x00, command.ins == 0xA4 { return .select }
        guard command.cla == TONCommands.cla else { return nil }
        return TONInstruction(rawValue: command.ins)
    }
}
