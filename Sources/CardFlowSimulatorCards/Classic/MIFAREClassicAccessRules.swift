/// The access conditions of a MIFARE Classic sector as the card enforces them, from the NXP
/// MF1S50yyX datasheet §8.7 (tables "access conditions for the sector trailer" and "access
/// conditions for data blocks"). Conditions are read `C1 C2 C3` as a 3-bit number.
enum MIFAREClassicAccessRules {
    /// Which key authenticated.
    enum Key: UInt8, Sendable, Hashable, Codable {
        case a = 0x60
        case b = 0x61
    }

    enum DataOperation {
        case read, write, increment, decrementTransferRestore
    }

    /// The four conditions (data groups 0–2, trailer 3) of trailer bytes 6–8; nil when an
    /// inverted copy disagrees (the datasheet: the sector is then blocked for good).
    static func conditions(_ bytes: ArraySlice<UInt8>) -> [UInt8]? {
        guard bytes.count == 3 else { return nil }
        let b6 = bytes[bytes.startIndex]
        let b7 = bytes[bytes.startIndex + 1]
        let b8 = bytes[bytes.startIndex + 2]
        let c1 = b7 >> 4
        let c2 = b8 & 0x0F
        let c3 = b8 >> 4
        guard ~b6 & 0x0F == c1, ~b6 >> 4 & 0x0F == c2, ~b7 & 0x0F == c3 else { return nil }
        return (0..<4).map { group in
            ((c1 >> group) & 1) << 2 | ((c2 >> group) & 1) << 1 | (c3 >> group) & 1
        }
    }

    /// Whether key B can be read under trailer condition `trailer` (and so cannot authenticate).
    static func keyBReadable(trailer: UInt8) -> Bool {
        [0b000, 0b010, 0b001].contains(trailer)
    }

    /// Whether `key` may do `operation` on a data block under `condition`.
    static func allows(_ operation: DataOperation, condition: UInt8, key: Key) -> Bool {
        // A = key A only, B = key B only, AB = either, N = never (datasheet row order).
        let row: (read: String, write: String, increment: String, other: String)
        switch condition {
        case 0b000: row = ("AB", "AB", "AB", "AB")
        case 0b010: row = ("AB", "N", "N", "N")
        case 0b100: row = ("AB", "B", "N", "N")
        case 0b110: row = ("AB", "B", "B", "AB")
        case 0b001: row = ("AB", "N", "N", "AB")
        case 0b011: row = ("B", "B", "N", "N")
        case 0b101: row = ("B", "N", "N", "N")
        default: row = ("N", "N", "N", "N")
        }
        let cell: String
        switch operation {
        case .read: cell = row.read
        case .write: cell = row.write
        case .increment: cell = row.increment
        case .decrementTransferRestore: cell = row.other
        }
        return cell.contains(key == .a ? "A" : "B")
    }

    /// Trailer parts: key A, access bits (with the GPB), key B.
    enum TrailerPart {
        case keyA, accessBits, keyB
    }

    /// Whether `key` may read `part` of the trailer under `condition` (key A is never readable).
    static func mayRead(_ part: TrailerPart, condition: UInt8, key: Key) -> Bool {
        switch part {
        case .keyA: return false
        case .accessBits: return key == .a || ![0b000, 0b010, 0b001].contains(condition)
        case .keyB: return key == .a && keyBReadable(trailer: condition)
        }
    }

    /// Whether `key` may write `part` of the trailer under `condition`.
    static func mayWrite(_ part: TrailerPart, condition: UInt8, key: Key) -> Bool {
        switch (part, condition) {
        case (.keyA, 0b000), (.keyA, 0b001), (.keyB, 0b000), (.keyB, 0b001): return key == .a
        case (.keyA, 0b100), (.keyA, 0b011), (.keyB, 0b100), (.keyB, 0b011): return key == .b
        case (.accessBits, 0b001): return key == .a
        case (.accessBits, 0b011), (.accessBits, 0b101): return key == .b
        default: return false
        }
    }
}
