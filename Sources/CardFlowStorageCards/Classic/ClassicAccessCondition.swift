/// One access condition of a MIFARE Classic sector: the three bits C1 C2 C3 the NXP MF1S50
/// datasheet (§8.7) gives each of a sector's data-block groups and its trailer.
///
/// ``rawValue`` reads the bits in the datasheet's order, `C1 C2 C3` = `rawValue` in binary: the
/// transport trailer condition `0 0 1` is 1, the value-block condition `1 1 0` is 6.
public struct ClassicAccessCondition: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    /// `C1 << 2 | C2 << 1 | C3`, 0…7.
    public let rawValue: UInt8

    /// A condition from `C1 << 2 | C2 << 1 | C3`; nil above 7.
    public init?(rawValue: UInt8) {
        guard rawValue <= 7 else { return nil }
        self.rawValue = rawValue
    }

    /// A condition from its three bits.
    public init(c1: Bool, c2: Bool, c3: Bool) {
        rawValue = (c1 ? 4 : 0) | (c2 ? 2 : 0) | (c3 ? 1 : 0)
    }

    /// Bit C1.
    public var c1: Bool { rawValue & 4 != 0 }
    /// Bit C2.
    public var c2: Bool { rawValue & 2 != 0 }
    /// Bit C3.
    public var c3: Bool { rawValue & 1 != 0 }

    /// For a data block: what each key may do (datasheet table "access conditions for data blocks").
    public var dataBlockPermissions: ClassicDataBlockPermissions {
        ClassicDataBlockPermissions(condition: self)
    }

    /// For a sector trailer: what each key may do (datasheet table "access conditions for the
    /// sector trailer").
    public var trailerPermissions: ClassicTrailerPermissions {
        ClassicTrailerPermissions(condition: self)
    }

    public var description: String {
        "C1C2C3 \(c1 ? 1 : 0)\(c2 ? 1 : 0)\(c3 ? 1 : 0)"
    }
}

/// Which keys may do something: neither, key A, key B, or either.
public struct ClassicKeys: OptionSet, Sendable, Hashable, CustomStringConvertible {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    public static let keyA = ClassicKeys(rawValue: 1)
    public static let keyB = ClassicKeys(rawValue: 2)
    /// Key A or key B.
    public static let either: ClassicKeys = [.keyA, .keyB]
    /// No key: never.
    public static let never: ClassicKeys = []

    /// Whether `keyType` is among these keys.
    public func allows(_ keyType: ClassicKeyType) -> Bool {
        contains(keyType == .a ? .keyA : .keyB)
    }

    public var description: String {
        switch self {
        case .never: "never"
        case .keyA: "key A"
        case .keyB: "key B"
        default: "key A|B"
        }
    }
}

/// What each key may do to a data block under one access condition (NXP MF1S50 datasheet, §8.7.2).
///
/// Where the sector trailer lets key A read key B (trailer conditions `000`, `010`, `001`), key B
/// cannot serve for authentication: the table's "key B" entries then hold for no key.
public struct ClassicDataBlockPermissions: Sendable, Hashable {
    public let read: ClassicKeys
    public let write: ClassicKeys
    public let increment: ClassicKeys
    /// Decrement, transfer and restore.
    public let decrementTransferRestore: ClassicKeys

    /// The datasheet row for `condition`.
    public init(condition: ClassicAccessCondition) {
        switch condition.rawValue {
        case 0b000: (read, write, increment, decrementTransferRestore) = (.either, .either, .either, .either)
        case 0b010: (read, write, increment, decrementTransferRestore) = (.either, .never, .never, .never)
        case 0b100: (read, write, increment, decrementTransferRestore) = (.either, .keyB, .never, .never)
        case 0b110: (read, write, increment, decrementTransferRestore) = (.either, .keyB, .keyB, .either)
        case 0b001: (read, write, increment, decrementTransferRestore) = (.either, .never, .never, .either)
        case 0b011: (read, write, increment, decrementTransferRestore) = (.keyB, .keyB, .never, .never)
        case 0b101: (read, write, increment, decrementTransferRestore) = (.keyB, .never, .never, .never)
        default: (read, write, increment, decrementTransferRestore) = (.never, .never, .never, .never)
        }
    }
}

/// What each key may do to a sector trailer under one access condition (NXP MF1S50 datasheet,
/// §8.7.1). Key A is never readable.
public struct ClassicTrailerPermissions: Sendable, Hashable {
    public let writeKeyA: ClassicKeys
    public let readAccessBits: ClassicKeys
    public let writeAccessBits: ClassicKeys
    public let readKeyB: ClassicKeys
    public let writeKeyB: ClassicKeys

    /// The datasheet row for `condition`.
    public init(condition: ClassicAccessCondition) {
        switch condition.rawValue {
        case 0b000:
            (writeKeyA, readAccessBits, writeAccessBits, readKeyB, writeKeyB) = (.keyA, .keyA, .never, .keyA, .keyA)
        case 0b010:
            (writeKeyA, readAccessBits, writeAccessBits, readKeyB, writeKeyB) = (.never, .keyA, .never, .keyA, .never)
        case 0b100:
            (writeKeyA, readAccessBits, writeAccessBits, readKeyB, writeKeyB) = (.keyB, .either, .never, .never, .keyB)
        case 0b110:
            (writeKeyA, readAccessBits, writeAccessBits, readKeyB, writeKeyB) = (
                .never, .either, .never, .never, .never
            )
        case 0b001:
            (writeKeyA, readAccessBits, writeAccessBits, readKeyB, writeKeyB) = (.keyA, .keyA, .keyA, .keyA, .keyA)
        case 0b011:
            (writeKeyA, readAccessBits, writeAccessBits, readKeyB, writeKeyB) = (.keyB, .either, .keyB, .never, .keyB)
        case 0b101:
            (writeKeyA, readAccessBits, writeAccessBits, readKeyB, writeKeyB) = (.never, .either, .keyB, .never, .never)
        default:
            (writeKeyA, readAccessBits, writeAccessBits, readKeyB, writeKeyB) = (
                .never, .either, .never, .never, .never
            )
        }
    }

    /// Whether key B is readable, and so cannot authenticate (conditions `000`, `010`, `001`).
    public var keyBReadable: Bool { readKeyB != .never }

    /// Whether some key can still write some part of the trailer (key A, the access bits or key B).
    /// When none can, the sector's keys and access conditions are frozen for good.
    public var trailerStaysWritable: Bool {
        writeKeyA != .never || writeAccessBits != .never || writeKeyB != .never
    }
}
