/// A message from the reader's interrupt-IN endpoint (CCID 6.3).
public enum CCIDInterruptMessage: Sendable, Hashable {
    /// RDR_to_PC_NotifySlotChange: per slot, whether a card is present and whether that changed.
    case slotChange([SlotChange])
    /// RDR_to_PC_HardwareError: bSlot, bSeq, bHardwareErrorCode (0x01 = overcurrent).
    case hardwareError(slot: UInt8, sequence: UInt8, code: UInt8)

    /// One slot's state in a NotifySlotChange message.
    public struct SlotChange: Sendable, Hashable {
        public var slot: Int
        public var cardPresent: Bool
        public var changed: Bool
        public init(slot: Int, cardPresent: Bool, changed: Bool) {
            self.slot = slot
            self.cardPresent = cardPresent
            self.changed = changed
        }
    }

    public static let slotChangeType: UInt8 = 0x50
    public static let hardwareErrorType: UInt8 = 0x51

    /// Encodes the message; NotifySlotChange carries two bits per slot, four slots per byte.
    public func encoded() -> [UInt8] {
        switch self {
        case .slotChange(let changes):
            let slotCount = (changes.map(\.slot).max() ?? 0) + 1
            var bytes = [Self.slotChangeType] + [UInt8](repeating: 0, count: (slotCount + 3) / 4)
            for change in changes {
                let index = 1 + change.slot / 4
                let shift = UInt8(2 * (change.slot % 4))
                if change.cardPresent { bytes[index] |= 1 << shift }
                if change.changed { bytes[index] |= 2 << shift }
            }
            return bytes
        case .hardwareError(let slot, let sequence, let code):
            return [Self.hardwareErrorType, slot, sequence, code]
        }
    }

    /// Decodes an interrupt transfer. `slotCount` (bMaxSlotIndex + 1) limits how many slots of a
    /// NotifySlotChange are reported; bytes beyond it are ignored.
    public init(decoding bytes: [UInt8], slotCount: Int) throws(CCIDFrameError) {
        guard let type = bytes.first else { throw .truncatedInterrupt(type: 0, received: 0, needed: 1) }
        switch type {
        case Self.slotChangeType:
            let needed = 1 + (slotCount + 3) / 4
            guard bytes.count >= needed else {
                throw .truncatedInterrupt(type: type, received: bytes.count, needed: needed)
            }
            self = .slotChange(
                (0..<slotCount).map { slot in
                    let bits = bytes[1 + slot / 4] >> UInt8(2 * (slot % 4))
                    return SlotChange(slot: slot, cardPresent: bits & 1 != 0, changed: bits & 2 != 0)
                })
        case Self.hardwareErrorType:
            guard bytes.count >= 4 else { throw .truncatedInterrupt(type: type, received: bytes.count, needed: 4) }
            self = .hardwareError(slot: bytes[1], sequence: bytes[2], code: bytes[3])
        default:
            throw .unknownMessageType(type)
        }
    }
}
