/// A connection to one card over which command APDUs are exchanged.
///
/// Every layer talks to a card through this protocol: readers implement it, higher layers
/// build on it (see ``CardChannel/send(_:policy:)`` for automatic GET RESPONSE and Le correction).
public protocol CardChannel: Sendable {
    /// Sends one command APDU exactly as given and returns the card's answer (no 61xx/6Cxx handling).
    func transmit(_ command: CommandAPDU) async throws -> ResponseAPDU
}
