/// Which slot of a multi-slot CCID device an inbound message is for: bulk-IN answers by their
/// bSlot (the reader copies it from the command), interrupt-IN messages by the slots they
/// report on.
enum CCIDMessageRouting {
    /// A bulk-IN frame goes to the slot it names; one that does not decode goes to every slot
    /// with an exchange in flight (each fails it as malformed, as a single-slot reader does).
    static func bulkIn(_ bytes: [UInt8]) -> InboundPipe.Destination {
        guard let slot = CCIDResponse.slot(ofDecodable: bytes) else { return .everyone }
        return .key(slot)
    }

    /// A NotifySlotChange goes to the slots it marks as changed (to every slot when it marks
    /// none: it still says the reader looked), a HardwareError to its slot; a message that does
    /// not decode goes to every slot, which asks the reader what happened.
    static func interrupt(_ bytes: [UInt8], slotCount: Int) -> InboundPipe.Destination {
        guard let message = try? CCIDInterruptMessage(decoding: bytes, slotCount: slotCount) else { return .everyone }
        switch message {
        case .slotChange(let changes):
            let changed = changes.filter(\.changed).map { UInt8(truncatingIfNeeded: $0.slot) }
            return changed.isEmpty ? .everyone : .keys(changed)
        case .hardwareError(let slot, _, _):
            return Int(slot) < slotCount ? .keys([slot]) : .everyone
        }
    }
}
