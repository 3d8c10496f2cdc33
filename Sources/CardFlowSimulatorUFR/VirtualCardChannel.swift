import CardFlow
import CardFlowSimulatorCards

/// The card of one reader-side DESFire transaction (the 8x commands), held apart from the reader
/// while ``/CardFlowDESFire/DESFireClient`` talks to it: the reader takes its card out, runs the
/// transaction on this box, then puts the card (with its new state) back.
///
/// An actor, so the value-type card is changed from the client's asynchronous calls without
/// locks; it also records the command APDUs the card received.
actor VirtualCardBox {
    /// The card, with every change the commands made.
    private(set) var card: any VirtualCard
    /// The command APDUs the card received, in order.
    private(set) var commands: [[UInt8]] = []

    init(_ card: any VirtualCard) {
        self.card = card
    }

    /// Passes one command APDU to the card and returns its answer (data and SW1 SW2).
    func process(_ command: [UInt8]) -> [UInt8] {
        commands.append(command)
        return card.process(command)
    }
}

/// A ``/CardFlow/CardChannel`` straight onto a simulated card: each command APDU goes to the
/// card's ``VirtualCard/process(_:)`` as encoded bytes, the answer comes back as a response APDU.
/// The uFR simulator's own "reader firmware" runs CardFlow's DESFire client over it.
struct VirtualCardChannel: CardChannel {
    let box: VirtualCardBox

    /// Sends the APDU to the card. Throws ``/CardFlow/APDUParseError`` when the card answers
    /// fewer than 2 bytes.
    func transmit(_ command: CommandAPDU) async throws -> ResponseAPDU {
        let answer = await box.process(command.encoded())
        return try ResponseAPDU(bytes: answer)
    }
}
