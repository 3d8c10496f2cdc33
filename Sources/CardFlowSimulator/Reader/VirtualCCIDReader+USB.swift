import CardFlow
import CardFlowCCID
import CardFlowCCIDProtocol
import Logging

// The reader's USB side: bulk-OUT in, bulk-IN, interrupt-IN and control answers out.
extension VirtualCCIDReader {
    // MARK: - USB side

    /// Handles one bulk-OUT transfer whose answer may be written into `answerStorage`, storage
    /// the host lends (``/CardFlowCCIDProtocol/USBBulkInRead/storage``) and gives up: held by
    /// the reader alone, the answer costs no allocation.
    public func receiveBulkOut(
        _ bytes: consuming [UInt8], answerStorage: consuming [UInt8]
    ) throws(USBTransportError) {
        swap(&lentAnswerStorage, &answerStorage)
        try receiveBulkOut(consume bytes)
    }

    /// Handles one bulk-OUT transfer. An XfrBlock's data stays in the transfer's own storage
    /// (`ReceivedTransferData`): the card reads a T=1 block there, and a command handed over
    /// alone becomes the card's command with the header removed in place, without a copy.
    public func receiveBulkOut(_ bytes: consuming [UInt8]) throws(USBTransportError) {
        guard !unplugged else { throw .noDevice }
        applyScheduledEvents()
        commandsReceived += 1
        if let chaos = configuration.chaos, var chaosRandom {
            // Drawn for every command, so a seed replays the same faults for the same commands.
            let draw = Double(chaosRandom.next() >> 11) / Double(1 << 53)
            if draw < chaos.rate {
                let fault = chaos.pickFault(for: configuration.descriptor.exchangeLevel, using: &chaosRandom)
                if faults.count < Self.maxQueuedFaults || fault.isInterruptMessage { inject(fault) }
            }
            self.chaosRandom = chaosRandom
        }
        if takeFault(.unplug) {
            unplug()
            throw .noDevice
        }
        let transferLength = bytes.count
        let command: CCIDCommand
        do {
            command = try CCIDCommand(decodingLeavingTransferData: bytes)
        } catch {
            answerMalformed(bytes, error: error)
            return
        }
        if let held = storm, held.slot == command.slot {
            // The host moved on (another command, or the Abort that handle(_:) answers).
            endStorm(held)
        }
        if takeFault(.noResponse) { return }
        if takeFault(.staleFrame) {
            let stale = CCIDResponse(
                slot: command.slot, sequence: command.sequence &- 1,
                state: .init(icc: .presentActive, command: .processed),
                kind: .slotStatus(clockStatus: 0))
            enqueue(stale.encoded(), delay: .zero)
        }
        guard slots.indices.contains(Int(command.slot)) else {
            reply(
                failure(command, error: .badParameter(offset: 5), icc: .absent),
                delay: configuration.timing.readerOnlyTime)
            return
        }
        if transferLength > Int(configuration.descriptor.maxMessageLength) {
            reply(
                failure(command, error: .badParameter(offset: 1), icc: slots[Int(command.slot)].iccStatus),
                delay: configuration.timing.readerOnlyTime)
            return
        }
        if takeFault(.hardwareError) {
            queueInterrupt(
                CCIDInterruptMessage.hardwareError(slot: command.slot, sequence: command.sequence, code: 0x01).encoded()
            )
            reply(
                failure(command, error: .hardwareError, icc: slots[Int(command.slot)].iccStatus),
                delay: configuration.timing.readerOnlyTime)
            return
        }
        if isBusy(for: command) {
            // Refused at once, so the refusal does not make the slot busy in turn.
            slotBusyRefusals += 1
            reply(failure(command, error: .slotBusy, icc: slots[Int(command.slot)].iccStatus), delay: .zero)
            return
        }
        if case .xfrBlock(_, let level, _) = command.kind {
            handleXfrBlock(command, level: level, data: ReceivedTransferData(frame: consume bytes))
        } else {
            handle(command)
        }
    }

    /// How many slots may work on a command at once (bMaxCCIDBusySlots; readers declaring 0
    /// work one at a time).
    public nonisolated var concurrentSlotLimit: Int {
        let descriptor = configuration.descriptor
        return min(max(Int(descriptor.maxBusySlots), 1), descriptor.slotCount)
    }

    /// The slots of a multi-slot reader still working on a command (their answer is not ready).
    func busySlots() -> Set<UInt8> {
        let now = clock.now()
        var busy: Set<UInt8> = []
        for entry in bulkInQueue where entry.readyAt > now && entry.bytes.count > 5 {
            busy.insert(entry.bytes[5])
        }
        if let storm { busy.insert(storm.slot) }
        return busy
    }

    /// Whether a multi-slot reader must refuse `command` with CMD_SLOT_BUSY: its slot is still
    /// working, or bMaxCCIDBusySlots other slots are. The Abort of a slot's command always goes
    /// through.
    func isBusy(for command: CCIDCommand) -> Bool {
        guard slots.count > 1 else { return false }
        if case .abort = command.kind { return false }
        let busy = busySlots()
        return busy.contains(command.slot) || busy.count >= concurrentSlotLimit
    }

    /// Returns the next bulk-IN message once it is due, or throws `timeout` when none is due
    /// within `timeout`.
    public func nextBulkIn(maxLength: Int, timeout: Duration) async throws(USBTransportError) -> [UInt8] {
        let deadline = clock.now() + timeout
        while true {
            guard !unplugged else { throw .noDevice }
            if bulkInQueue.isEmpty, var held = storm {
                // The storm's next frame, made only when the host is reading: no queue grows.
                let frame = CCIDResponse(
                    slot: held.slot, sequence: held.sequence,
                    state: .init(icc: .presentActive, command: .timeExtension),
                    errorCode: held.multiplier, kind: .dataBlock(chainParameter: 0, data: []))
                bulkInQueue.append((frame.encoded(), held.nextFrameAt))
                held.nextFrameAt += held.interval
                storm = held
            }
            if stallNextRead {
                stallNextRead = false
                throw .stall(endpoint: "bulk-IN")
            }
            if slots.count > 1 {
                // Slots work side by side: the first answer that is ready goes out, keeping
                // each slot's own answers in order.
                let now = clock.now()
                if let index = deliverableIndex(at: now) {
                    let entry = bulkInQueue.remove(at: index)
                    guard entry.bytes.count <= maxLength else { throw .overflow(endpoint: "bulk-IN") }
                    return entry.bytes
                }
                guard now < deadline else { throw .timeout(endpoint: "bulk-IN", after: timeout) }
                if Task.isCancelled { throw .cancelled }
                // A new answer (another slot's) may be due before the earliest queued one.
                let wakeAt = min(deadline, bulkInQueue.map(\.readyAt).filter { $0 > now }.min() ?? deadline)
                await waitForData(.bulkIn, until: wakeAt)
                if Task.isCancelled && deliverableIndex(at: clock.now()) == nil { throw .cancelled }
                continue
            }
            if let head = bulkInQueue.first {
                let now = clock.now()
                if head.readyAt > now {
                    let wakeAt = min(head.readyAt, deadline)
                    do { try await clock.suspend(until: wakeAt) } catch { throw USBTransportError.cancelled }
                    if wakeAt == deadline && head.readyAt > deadline {
                        throw .timeout(endpoint: "bulk-IN", after: timeout)
                    }
                    continue
                }
                bulkInQueue.removeFirst()
                guard head.bytes.count <= maxLength else { throw .overflow(endpoint: "bulk-IN") }
                return head.bytes
            }
            guard clock.now() < deadline else { throw .timeout(endpoint: "bulk-IN", after: timeout) }
            if Task.isCancelled { throw .cancelled }
            await waitForData(.bulkIn, until: deadline)
            if Task.isCancelled && bulkInQueue.isEmpty { throw .cancelled }
        }
    }

    /// The queued answer to send now on a multi-slot reader: the first that is ready and not
    /// behind an unready frame for the same command (bSlot and bSeq: time extensions before the
    /// answer stay in order; a CMD_SLOT_BUSY refusal does not wait for the busy command).
    func deliverableIndex(at now: Duration) -> Int? {
        var waitingCommands: Set<Int> = []
        for (index, entry) in bulkInQueue.enumerated() {
            let command = entry.bytes.count > 6 ? Int(entry.bytes[5]) << 8 | Int(entry.bytes[6]) : -1
            if entry.readyAt <= now, !waitingCommands.contains(command) { return index }
            waitingCommands.insert(command)
        }
        return nil
    }

    /// Returns the next interrupt-IN message (card events), or throws `timeout`.
    public func nextInterrupt(maxLength: Int, timeout: Duration) async throws(USBTransportError) -> [UInt8] {
        guard configuration.hasInterruptEndpoint else { throw .noInterruptEndpoint }
        let deadline = clock.now() + timeout
        while true {
            guard !unplugged else { throw .noDevice }
            applyScheduledEvents()
            if !interruptQueue.isEmpty {
                let message = interruptQueue.removeFirst()
                return Array(message.prefix(maxLength))
            }
            guard clock.now() < deadline else { throw .timeout(endpoint: "interrupt-IN", after: timeout) }
            if Task.isCancelled { throw .cancelled }
            // Wake for a scheduled card return too, so its notification is not late.
            let wakeAt = min(deadline, scheduledReturn?.at ?? deadline)
            await waitForData(.interrupt, until: wakeAt)
            if Task.isCancelled && interruptQueue.isEmpty { throw .cancelled }
        }
    }

    /// Handles a control transfer on the default pipe.
    public func control(_ request: USBControlRequest) throws(USBTransportError) -> [UInt8] {
        guard !unplugged else { throw .noDevice }
        switch CCIDClassRequest(request) {
        case .abort:
            // The bulk-OUT half does the work; the control half only has to be accepted.
            return []
        case .getClockFrequencies:
            guard configuration.descriptor.numClockSupported > 0 else { throw .stall(endpoint: "control") }
            return CCIDClassRequest.encodeValues(
                Array(
                    repeating: configuration.descriptor.defaultClock,
                    count: Int(configuration.descriptor.numClockSupported)))
        case .getDataRates:
            guard configuration.descriptor.numDataRatesSupported > 0 else { throw .stall(endpoint: "control") }
            let count = Int(configuration.descriptor.numDataRatesSupported)
            let rates =
                configuration.supportedDataRates ?? Array(repeating: configuration.descriptor.dataRate, count: count)
            return CCIDClassRequest.encodeValues(Array(rates.prefix(count)))
        case nil:
            throw .stall(endpoint: "control")
        }
    }
}
