/// The simulated reader's DESFire key store (ufr.md §3 DESFIRE_WRITE_AES_KEY, desfire.md §8):
/// 16 slots of 16 bytes, factory value 16 × 00, written with DESFIRE_WRITE_AES_KEY (8E) and never
/// readable on the wire. While the keys are locked, 8E answers KEYS_LOCKED (76); the slots can
/// still be used by the DESFire commands.
///
/// Tests read a slot back with ``key(inSlot:)`` (a simulator-only window: no command reads it).
///
/// ```swift
/// let keys = await reader.readerKeys
/// keys.key(inSlot: 3)   // 16 bytes, 16 × 00 until written
/// keys.isLocked         // false until SimulatedUFRReader.lockReaderKeys()
/// ```
public struct SimulatedUFRReaderKeys: Sendable, Equatable {
    /// Number of slots, 0–15.
    public static let slotCount = 16
    /// Bytes per slot.
    public static let keyLength = 16
    /// The value of every slot of a new reader: 16 × 00.
    public static let factoryKey = [UInt8](repeating: 0, count: keyLength)

    private var slots = [[UInt8]](repeating: factoryKey, count: slotCount)
    /// Whether the keys are locked (READER_KEYS_LOCK): 8E then refuses with KEYS_LOCKED.
    public internal(set) var isLocked = false

    /// A reader with every slot at the factory value, unlocked.
    public init() {}

    /// The 16 bytes in `slot`, nil for a slot number outside 0–15.
    public func key(inSlot slot: Int) -> [UInt8]? {
        slots.indices.contains(slot) ? slots[slot] : nil
    }

    /// Whether every slot still holds the factory value.
    public var isFactoryState: Bool { slots.allSatisfy { $0 == Self.factoryKey } }

    /// Stores `key` (16 bytes) in `slot`, whatever the lock; false (nothing stored) for a slot
    /// outside 0–15 or another length.
    @discardableResult
    mutating func store(_ key: [UInt8], inSlot slot: Int) -> Bool {
        guard slots.indices.contains(slot), key.count == Self.keyLength else { return false }
        slots[slot] = key
        return true
    }
}
