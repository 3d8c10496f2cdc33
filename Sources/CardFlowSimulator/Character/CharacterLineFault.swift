/// A one-off slip of the card on a character-level reader's I/O line, for tests that the host
/// survives a hostile or noisy line (ISO/IEC 7816-3 §10 for T=0, §11 for T=1). Injected with
/// ``VirtualCCIDReader/inject(_:)`` as ``ReaderFault/characterLine(_:)``, or drawn by
/// ``ReaderChaos`` on character-level readers.
///
/// The fault spoils the next characters the card sends after the host's next bytes reach it (one
/// "emission": the procedure bytes, data and status word that answer a header or data, or one
/// T=1 block); a fault of the other protocol, or one the emission has nothing for (a wrong ACK
/// when the card answers with SW1 SW2 at once), passes without effect.
///
/// ```swift
/// await reader.inject(.characterLine(.nullFlood(count: 500)))
/// ```
public enum CharacterLineFault: Sendable, Hashable {
    // MARK: T=0

    /// The first procedure byte is lost on the line.
    case procedureByteLost
    /// A byte the card should not have sent comes before the first procedure byte.
    case extraByteBeforeProcedureByte(UInt8)
    /// The first procedure byte arrives as this byte instead.
    case procedureByteGarbled(UInt8)
    /// This many NULL bytes (60) come before the first procedure byte (a card asking for time
    /// again and again).
    case nullFlood(count: Int)
    /// The first ACK (INS or INS ⊕ FF) arrives with its low bit flipped: no valid procedure byte.
    case wrongAcknowledge
    /// An emission that ends with SW1 SW2 loses SW2.
    case statusWordTruncated

    // MARK: T=1

    /// The byte at this position of the next block (modulo its length) is lost.
    case blockByteLost(at: Int)
    /// LEN of the next block is XORed with this mask (0 is taken as 1).
    case wrongLength(mask: UInt8)

    /// A short name for tallies and logs.
    public var name: String {
        switch self {
        case .procedureByteLost: "procedureByteLost"
        case .extraByteBeforeProcedureByte: "extraByteBeforeProcedureByte"
        case .procedureByteGarbled: "procedureByteGarbled"
        case .nullFlood: "nullFlood"
        case .wrongAcknowledge: "wrongAcknowledge"
        case .statusWordTruncated: "statusWordTruncated"
        case .blockByteLost: "blockByteLost"
        case .wrongLength: "wrongLength"
        }
    }

    /// Every T=0 fault, with its value drawn from `random` (NULL floods of 1 to 1 000 bytes), for
    /// seeded campaigns.
    ///
    /// ```swift
    /// var random = SeededRandom(seed: 7)
    /// let menu = CharacterLineFault.t0Faults(using: &random)
    /// ```
    public static func t0Faults(using random: inout SeededRandom) -> [CharacterLineFault] {
        [
            .procedureByteLost, .extraByteBeforeProcedureByte(UInt8(truncatingIfNeeded: random.next())),
            .procedureByteGarbled(UInt8(truncatingIfNeeded: random.next())),
            .nullFlood(count: Int(random.next() % 1_000) + 1),
            .wrongAcknowledge, .statusWordTruncated,
        ]
    }

    /// Every T=1 fault, with its value drawn from `random` (a corrupted EDC is
    /// ``ReaderFault/corruptT1Block``).
    public static func t1Faults(using random: inout SeededRandom) -> [CharacterLineFault] {
        [.blockByteLost(at: Int(random.next() % 300)), .wrongLength(mask: UInt8(truncatingIfNeeded: random.next()))]
    }

    /// Applies a T=0 fault to the card's characters answering one header or data transfer;
    /// `instruction` is the command's INS, `endsWithStatusWord` says whether the characters end
    /// with SW1 SW2. Nil when the fault has nothing to act on here.
    func applied(toT0 characters: [UInt8], instruction: UInt8, endsWithStatusWord: Bool) -> [UInt8]? {
        guard !characters.isEmpty else { return nil }
        var spoiled = characters
        switch self {
        case .procedureByteLost:
            spoiled.removeFirst()
        case .extraByteBeforeProcedureByte(let byte):
            spoiled.insert(byte, at: 0)
        case .procedureByteGarbled(let byte):
            spoiled[0] = byte
        case .nullFlood(let count):
            spoiled.insert(contentsOf: [UInt8](repeating: 0x60, count: max(count, 1)), at: 0)
        case .wrongAcknowledge:
            guard let index = spoiled.firstIndex(where: { $0 != 0x60 }),
                spoiled[index] == instruction || spoiled[index] == ~instruction
            else { return nil }
            spoiled[index] ^= 0x01
        case .statusWordTruncated:
            guard endsWithStatusWord else { return nil }
            spoiled.removeLast()
        case .blockByteLost, .wrongLength:
            return nil
        }
        return spoiled
    }

    /// Applies a T=1 fault to one block the card sends; nil when it is a T=0 fault.
    func applied(toT1Block block: [UInt8]) -> [UInt8]? {
        guard block.count >= 3 else { return nil }
        var spoiled = block
        switch self {
        case .blockByteLost(let position):
            spoiled.remove(at: position % spoiled.count)
        case .wrongLength(let mask):
            spoiled[2] ^= mask == 0 ? 1 : mask
        case .procedureByteLost, .extraByteBeforeProcedureByte, .procedureByteGarbled, .nullFlood, .wrongAcknowledge,
            .statusWordTruncated:
            return nil
        }
        return spoiled
    }
}
