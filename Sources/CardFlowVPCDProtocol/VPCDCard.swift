/// A card that a ``VPCDCardExporter`` makes available to a remote vpcd reader (pcscd with
/// vsmartcard's vpcd driver, or a ``VPCDListener``).
///
/// The exporter calls one method at a time, in the order the reader's messages arrive.
///
/// ```swift
/// actor EchoCard: VPCDCard {
///     func powerOn() {}
///     func powerOff() {}
///     func reset() {}
///     func atr() -> [UInt8] { [0x3B, 0x80, 0x80, 0x01, 0x01] }
///     func transmit(_ apdu: [UInt8]) throws -> [UInt8] { [0x90, 0x00] }
/// }
/// ```
public protocol VPCDCard: Sendable {
    /// The reader powered the card (`01`).
    func powerOn() async
    /// The reader cut the card's power (`00`).
    func powerOff() async
    /// The reader reset the card (`02`).
    func reset() async
    /// The answer-to-reset the reader asks for (`04`), 1…65,535 bytes (in practice at most 33).
    func atr() async -> [UInt8]
    /// Answers one command APDU with a response APDU (data and SW1 SW2, 2…65,535 bytes).
    ///
    /// A thrown error is logged and answered with `6F 00` (no precise diagnosis), as is an
    /// answer that cannot be framed.
    func transmit(_ apdu: [UInt8]) async throws -> [UInt8]
}
