import CardFlow

/// Prints every APDU that crosses the channel in the familiar
/// `>>> Send apdu … / SW1-SW2: … / APDU Response: …` shape (`--trace`).
struct TracingChannel: CardChannel {
    let base: any CardChannel
    let write: @Sendable (String) -> Void

    func transmit(_ command: CommandAPDU) async throws -> ResponseAPDU {
        write(">>> Send apdu \(command.encoded().spacedHexString)")
        let response = try await base.transmit(command)
        write("SW1-SW2: \(hex2(response.sw1)), \(hex2(response.sw2))")
        write("APDU Response: \(response.data.isEmpty ? "(no data)" : response.data.spacedHexString)")
        return response
    }

    private func hex2(_ byte: UInt8) -> String { [byte].hexString }
}
