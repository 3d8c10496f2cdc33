/// Answers the reader-handled PC/SC part 3 pseudo-APDUs (class `FF`) for the card in the field.
///
/// Supported commands:
/// - `FF CA 00 00 Le` — GET DATA, UID. `Le = 00` returns the full UID with `90 00`; a shorter
///   `Le` gives `6C XX` (XX = UID length); a longer `Le` returns the UID padded with zeros to
///   `Le` bytes followed by `62 82` (end of data reached before Le), as `nfc-tools/ifdnfc` does.
/// - `FF CA 01 00 Le` — GET DATA, historical bytes of the ATS (ISO-DEP type A only; other
///   technologies give `6A 81`, function not supported). Same `Le` rules as the UID.
///
/// Errors:
/// - A GET DATA other than case 2 short (`FF CA P1 P2 Le`, 5 bytes) gives `67 00`.
/// - GET DATA with `P2 ≠ 00` or `P1` other than `00`/`01` gives `6A 86` (wrong P1-P2;
///   the vendor-specific `P1 = 02/03` SAK/ATQA variants are not emulated).
/// - Any other `FF` instruction gives `6D 00`, unless listed in ``passThroughInstructions``.
///
/// Commands of any other class, and all commands for contact cards, are not handled (`nil`):
/// the reader passes them to the card.
public struct PCSCPart3Responder: Sendable, Hashable {
    /// `FF` instructions the reader hands to the card model instead of answering them, for
    /// models that implement the storage-card pseudo-APDUs themselves (for example `B0`, `D6`,
    /// `82`, `86` for a MIFARE Classic model).
    public var passThroughInstructions: Set<UInt8>

    /// Creates a responder.
    ///
    /// - Parameter passThroughInstructions: `FF` instructions to leave to the card model.
    public init(passThroughInstructions: Set<UInt8> = []) {
        self.passThroughInstructions = passThroughInstructions
    }

    /// The reader's answer to `command` for `card`, or `nil` if the card must process it.
    public func response(to command: [UInt8], card: some VirtualCard) -> [UInt8]? {
        response(to: command, uid: card.uid, technology: card.technology)
    }

    /// The reader's answer to `command` for a card with this UID and technology, or `nil`
    /// if the card must process it.
    public func response(to command: [UInt8], uid: [UInt8], technology: ContactlessTechnology) -> [UInt8]? {
        guard command.first == 0xFF else { return nil }
        if case .contact = technology { return nil }
        guard command.count >= 2 else { return [0x67, 0x00] }
        let ins = command[1]
        if passThroughInstructions.contains(ins) { return nil }
        guard ins == 0xCA else { return [0x6D, 0x00] }
        guard command.count == 5 else { return [0x67, 0x00] }
        let p1 = command[2]
        let p2 = command[3]
        let le = command[4]
        guard p2 == 0x00 else { return [0x6A, 0x86] }
        switch p1 {
        case 0x00:
            return deliver(uid, le: le)
        case 0x01:
            guard case .isoDepTypeA(let ats) = technology,
                let historicalBytes = ContactlessATR.historicalBytes(fromATS: ats)
            else { return [0x6A, 0x81] }
            return deliver(historicalBytes, le: le)
        default:
            return [0x6A, 0x86]
        }
    }

    private func deliver(_ data: [UInt8], le: UInt8) -> [UInt8] {
        let expected = le == 0 ? data.count : Int(le)
        if expected < data.count {
            return [0x6C, UInt8(truncatingIfNeeded: data.count)]
        }
        if expected > data.count {
            return data + [UInt8](repeating: 0, count: expected - data.count) + [0x62, 0x82]
        }
        return data + [0x90, 0x00]
    }
}
