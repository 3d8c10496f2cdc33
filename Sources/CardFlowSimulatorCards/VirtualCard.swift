/// A simulated card model.
///
/// Card models are value types owned by a virtual reader (an actor), which serialises access.
/// A model parses command APDUs itself, from the ISO/IEC 7816-4 rules and the card's own
/// specification, independently of the client's APDU types, so that client bugs show up.
public protocol VirtualCard: Sendable {
    /// The model family, for example `"iso7816"`, `"desfire"` or `"ton"`.
    ///
    /// Persisted card states record it, so that a state file is never loaded into another model.
    var kind: String { get }

    /// What the reader sees on RF: ISO-DEP type A (ATS), type B, a storage tag, or a contact
    /// card with an explicit ATR.
    var technology: ContactlessTechnology { get }

    /// The anti-collision UID (4, 7 or 10 bytes for ISO 14443; 8 bytes for ISO 15693;
    /// the 4-byte PUPI for type B).
    var uid: [UInt8] { get }

    /// Field on / reset: clears volatile state (selection, authentication, pending responses).
    mutating func powerOn()

    /// Processes one command APDU and returns the response APDU (data followed by SW1 SW2).
    ///
    /// Must never trap, whatever the input bytes.
    mutating func process(_ command: [UInt8]) -> [UInt8]

    /// The time the card itself needs to answer `command`, for the reader's timing model.
    ///
    /// The default implementation returns `.zero`.
    func processingTime(for command: [UInt8]) -> Duration

    /// PC/SC part 3 `FF` instructions the reader hands to this model instead of answering them
    /// itself: storage tags implement READ/UPDATE BINARY (`B0`, `D6`) on their own memory.
    var readerPassThroughInstructions: Set<UInt8> { get }

    /// For a contact card: its ATR options and PPS behaviour, which decide the protocol a
    /// TPDU-level reader runs with it. Nil (the default) for contactless cards, whose ATR the
    /// reader synthesises from ``technology``.
    var contactInterface: ContactInterface? { get }

    /// For T=0 at character level, where the card sees the 5-byte header before any data:
    /// whether the command with this header takes P3 data bytes from the terminal (case 3, the
    /// card acknowledges and reads them) rather than being answered at once (cases 1 and 2, and
    /// instructions the card refuses). A real card knows it from its instruction.
    func t0TakesData(header: [UInt8]) -> Bool
}

extension VirtualCard {
    /// Default card processing time: none.
    public func processingTime(for command: [UInt8]) -> Duration { .zero }

    /// Default: the reader answers every `FF` pseudo-APDU itself.
    public var readerPassThroughInstructions: Set<UInt8> { [] }

    /// Default: not a contact card with negotiable options.
    public var contactInterface: ContactInterface? { nil }

    /// Default: the interindustry instructions of ISO/IEC 7816-4 that carry command data
    /// (VERIFY, MSE, PSO, authentications, SELECT, ENVELOPE, writes and updates, file
    /// management); anything else is answered at once.
    public func t0TakesData(header: [UInt8]) -> Bool {
        guard header.count >= 2 else { return false }
        // A switch, not a set literal: the line asks for every T=0 header, and a set built per
        // call (an allocation and 38 hashes) was a twentieth of a character-level T=0 exchange.
        switch header[1] {
        case 0x0E, 0x10, 0x12, 0x14, 0x16, 0x20, 0x21, 0x22, 0x24, 0x26, 0x28, 0x2A, 0x2C, 0x44,
            0x46, 0x82, 0x86, 0x87, 0x88, 0xA0, 0xA1, 0xA2, 0xA4, 0xC2, 0xC3, 0xCB, 0xD0, 0xD1,
            0xD2, 0xD6, 0xD7, 0xDA, 0xDB, 0xDC, 0xDD, 0xE0, 0xE2, 0xE4:
            return true
        default:
            return false
        }
    }
}
