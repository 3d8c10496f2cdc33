import CardFlow
import CardFlowCCID
import CardFlowCCIDProtocol
import Logging

// Scheduled card movement (lift, return, swap), slot-change interrupts and Abort.
extension VirtualCCIDReader {
    // MARK: - Scheduled card movement

    /// Stops a time-extension storm and drops its frame that is still waiting to go out.
    func endStorm(_ held: TimeExtensionStorm) {
        storm = nil
        bulkInQueue.removeAll { entry in
            guard let frame = try? CCIDResponse(decoding: entry.bytes) else { return false }
            return frame.slot == held.slot && frame.sequence == held.sequence && frame.state.command == .timeExtension
        }
    }

    func executeLift() {
        guard let plan = liftPlan else { return }
        liftPlan = nil
        guard let card = takeCard(slot: plan.slot) else { return }
        if let returnAfter = plan.returnAfter {
            scheduledReturn = (plan.slot, clock.now() + returnAfter, plan.replacement ?? card)
            wake(.interrupt)
        }
    }

    func applyScheduledEvents() {
        if let pending = scheduledReturn, clock.now() >= pending.at {
            scheduledReturn = nil
            place(pending.card, slot: pending.slot)
        }
    }

    func notifySlotChange(slot: Int) {
        let changes = slots.indices.map {
            CCIDInterruptMessage.SlotChange(slot: $0, cardPresent: slots[$0].card != nil, changed: $0 == slot)
        }
        queueInterrupt(CCIDInterruptMessage.slotChange(changes).encoded())
    }

    /// Queues an interrupt-IN message (readers without the endpoint drop it); the oldest goes
    /// when nobody reads them.
    func queueInterrupt(_ message: [UInt8]) {
        guard configuration.hasInterruptEndpoint else { return }
        if interruptQueue.count >= Self.maxQueuedInterrupts { interruptQueue.removeFirst() }
        interruptQueue.append(message)
        wake(.interrupt)
    }

    // MARK: - Abort

    func abortPending(slot: UInt8, sequence: UInt8) {
        // An answer not yet delivered for the aborted command becomes "command aborted", now.
        for position in bulkInQueue.indices {
            guard let response = try? CCIDResponse(decoding: bulkInQueue[position].bytes),
                response.slot == slot, response.sequence == sequence
            else { continue }
            var aborted = response
            aborted.state = .init(icc: aborted.state.icc, command: .failed)
            aborted.errorCode = CCIDSlotError.commandAborted.rawValue
            if case .dataBlock = aborted.kind { aborted.kind = .dataBlock(chainParameter: 0, data: []) }
            bulkInQueue[position] = (aborted.encoded(), clock.now())
        }
        // The card's half-finished chained command or response is dropped, and so is an
        // answer held back behind S(WTX) requests.
        slots[Int(slot)].commandChain = nil
        slots[Int(slot)].pendingResponse = []
        slots[Int(slot)].waitingTimeExtensionStorm = nil
    }
}
