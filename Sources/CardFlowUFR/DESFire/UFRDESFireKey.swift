import CardFlow

/// A DESFire key type as the uFR DESFire commands number it (Par0 bits, ufr.md §4).
public enum UFRDESFireKeyType: UInt8, Sendable, Hashable, CaseIterable {
    /// AES-128 (0): the only type older firmware and the reader-key slots know.
    case aes = 0
    /// Three-key 3DES (1).
    case threeKeyTripleDES = 1
    /// Single DES (2): a new card's PICC master key (8 × 00).
    case des = 2
    /// Two-key 3DES (3).
    case twoKeyTripleDES = 3

    /// The bytes a key of this type has.
    public var keyLength: Int {
        switch self {
        case .aes, .twoKeyTripleDES: 16
        case .des: 8
        case .threeKeyTripleDES: 24
        }
    }
}

/// The key a uFR DESFire command authenticates with: one the reader keeps in a key slot (the
/// "reader key" mode: the key never crosses the link), or one sent in the frame ("provided key").
///
/// ```swift
/// let inReader = try UFRDESFireKey.readerSlot(3)                        // AES key in slot 3
/// let factory = try UFRDESFireKey.provided(type: .des, [UInt8](repeating: 0, count: 8))
/// ```
public struct UFRDESFireKey: Sendable, Hashable, CustomStringConvertible {
    /// Where the reader takes the key from.
    public enum Source: Sendable, Hashable {
        /// A reader key slot, 0–15.
        case readerSlot(UInt8)
        /// The key bytes, sent in the command.
        case provided([UInt8])
    }

    /// The reader's key slots: 16 (ufr.md §4, desfire.md §8).
    public static let readerSlots: ClosedRange<Int> = 0...15

    /// Where the key is.
    public let source: Source
    /// The key's type.
    public let type: UFRDESFireKeyType

    /// A key in reader slot `slot`.
    ///
    /// - Throws: ``UFRDESFireError/invalidArgument(_:)`` for a slot outside 0–15, or a 3K3DES key
    ///   (which takes two slots and a frame layout this backend does not send).
    public static func readerSlot(_ slot: Int, type: UFRDESFireKeyType = .aes) throws(UFRDESFireError) -> Self {
        guard readerSlots.contains(slot) else { throw .invalidArgument("reader key slot \(slot) is not in 0–15") }
        guard type != .threeKeyTripleDES else { throw .invalidArgument("3K3DES keys are not supported over uFR") }
        // 0...15 (checked above).
        return Self(source: .readerSlot(UInt8(slot)), type: type)
    }

    /// A key sent in the frame.
    ///
    /// - Throws: ``UFRDESFireError/invalidArgument(_:)`` when the length does not fit the type, or
    ///   for 3K3DES (its last 8 bytes go in a place of the frame the documents leave unclear).
    public static func provided(type: UFRDESFireKeyType, _ bytes: [UInt8]) throws(UFRDESFireError) -> Self {
        guard type != .threeKeyTripleDES else { throw .invalidArgument("3K3DES keys are not supported over uFR") }
        guard bytes.count == type.keyLength else {
            throw .invalidArgument("a \(type) key has \(type.keyLength) bytes, not \(bytes.count)")
        }
        return Self(source: .provided(bytes), type: type)
    }

    /// The 16-byte key field of a frame: the key (a DES key padded with 8 zeros), or zeros for a slot.
    var keyField: [UInt8] {
        switch source {
        case .readerSlot: [UInt8](repeating: 0, count: 16)
        case .provided(let bytes): bytes + [UInt8](repeating: 0, count: 16 - bytes.count)
        }
    }

    /// The slot number, nil for a provided key.
    var slot: UInt8? {
        if case .readerSlot(let slot) = source { return slot }
        return nil
    }

    /// The slot or "provided", never the key bytes.
    public var description: String {
        switch source {
        case .readerSlot(let slot): "\(type) key in reader slot \(slot)"
        case .provided: "provided \(type) key"
        }
    }
}
