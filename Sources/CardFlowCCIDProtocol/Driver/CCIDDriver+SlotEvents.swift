// Card events per slot: one task reads the interrupt pipe and each slot gets the messages
// that concern it, so the watchers of several slots of one device do not take each other's.
extension CCIDDriver {
    /// Reads the next card event that concerns `slot`, or nil when none came within `timeout`.
    ///
    /// Watchers of different slots of one reader may call this side by side: the interrupt
    /// pipe is read once and every message goes to each slot it concerns (a NotifySlotChange to
    /// the slots it marks changed, or to all when it marks none; a HardwareError to its slot;
    /// an undecodable message to all, which surfaces as
    /// ``CCIDDriverError/malformedResponse(_:during:)``). Messages that arrive while a slot's
    /// watcher is between reads wait for it (a bounded number, oldest dropped first). A zero
    /// `timeout` takes a waiting message, or reads the pipe once when nobody else is reading it.
    public func readInterrupt(slot: UInt8, timeout: Duration) async throws -> CCIDInterruptMessage? {
        guard Int(slot) < descriptor.slotCount else {
            throw CCIDDriverError.noSuchSlot(slot, slotCount: descriptor.slotCount)
        }
        let bytes: [UInt8]
        switch await interrupts.next(for: slot, timeout: timeout) {
        case .success(let received): bytes = received
        case .failure(.timeout): return nil
        case .failure(let error): throw CCIDDriverError.transport(error, during: .getSlotStatus)
        }
        do {
            return try CCIDInterruptMessage(decoding: bytes, slotCount: descriptor.slotCount)
        } catch {
            throw CCIDDriverError.malformedResponse(error, during: .getSlotStatus)
        }
    }
}
