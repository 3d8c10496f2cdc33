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
    /// whether the command with this header sends P3 data bytes to the terminal (cases 1 and 2)
    /// rather than taking P3 bytes from it (case 3). A real card knows it from its instruction.
    func t0SendsData(header: [UInt8]) -> Bool
}

extension VirtualCard {
    /// Default card processing time: none.
    public func processingTime(for command: [UInt8]) -> Duration { .zero }

    /// Default: the reader answers every `FF` pseudo-APDU itself.
    public var readerPassThroughInstructions: Set<UInt8> { [] }

    /// Default: not a contact card with negotiable options.
    public var contactInterface: ContactInterface? { nil }

    /// Default: the interindustry instructions of ISO/IEC 7816-4 that return data without
    /// taking any (READ BINARY, READ RECORD, GET RESPONSE, GET DATA, GET CHALLENGE).
    public func t0SendsData(header: [UInt8]) -> Bool {
        guard header.count >= 2 else { return false }
        return [0xB0, 0xB1, 0xB2, 0xB3, 0xC0, 0xCA, 0x84].contains(header[1])
    }
}
