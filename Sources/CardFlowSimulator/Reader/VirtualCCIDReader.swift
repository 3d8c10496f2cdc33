import CardFlow
import CardFlowCCID
import CardFlowCCIDProtocol
import Logging

/// A simulated USB CCID reader. It speaks the USB side of CCID: it takes bulk-OUT messages and
/// produces bulk-IN, interrupt-IN and control answers, so the driver code that runs against a
/// real reader runs unchanged against it.
///
/// ```swift
/// let reader = VirtualCCIDReader(configuration: .level(.shortAPDU))
/// await reader.insert(ISO7816Card(seed: 1))
/// let transport = InMemoryUSBTransport(reader: reader)
/// let driver = CCIDDriver(transport: transport, descriptor: reader.configuration.descriptor)
/// ```
///
/// Cards come and go with ``insert(_:slot:)`` and ``removeCard(slot:)`` (queuing
/// NotifySlotChange), or on a schedule with ``liftCard(afterAPDUs:slot:returnAfter:replacement:)``.
/// Misbehaviour is injected with ``inject(_:)``.
///
/// A multi-slot reader (bMaxSlotIndex > 0) works its slots side by side: each answer goes out
/// when its slot is done, whatever another slot still works on, and a command arriving while
/// its slot is busy, or while bMaxCCIDBusySlots other slots are, is answered at once with
/// CMD_SLOT_BUSY (bError 0xE0), as CCID §6.2 asks. A slot is busy while its answer is not yet
/// ready (the card's and the reader's time in the ``TimingModel``).
public actor VirtualCCIDReader {
    public nonisolated let configuration: VirtualReaderConfiguration
    private let clock: any ElapsedClock
    private let logger: Logger
    private let part3 = PCSCPart3Responder()

    private var slots: [VirtualSlot]
    private var bulkInQueue: [(bytes: [UInt8], readyAt: Duration)] = []
    private var interruptQueue: [[UInt8]] = []
    private var faults: [ReaderFault] = []
    private var chaosRandom: SeededRandom?
    /// A time-extension storm in progress: the command it holds and when its next frame is due.
    private struct TimeExtensionStorm {
        let slot: UInt8
        let sequence: UInt8
        let multiplier: UInt8
        let interval: Duration
        var nextFrameAt: Duration
    }
    private var storm: TimeExtensionStorm?
    private var unplugged = false
    private var stallNextRead = false
    private var random: SeededRandom
    private var waiters:
        [UInt64: (channel: Channel, continuation: CheckedContinuation<Void, Never>, timer: Task<Void, Never>?)] = [:]
    private var nextWaiterID: UInt64 = 0

    // Scheduled card movement (slot 0 of `lift-after=N`, `return-after=MS`, `swap`).
    private var liftPlan: (slot: Int, remainingAPDUs: Int, returnAfter: Duration?, replacement: (any VirtualCard)?)?
    private var scheduledReturn: (slot: Int, at: Duration, card: any VirtualCard)?
    private var lastRemovedCards: [Int: any VirtualCard] = [:]

    /// Counters for tests and benchmarks.
    public private(set) var commandsReceived = 0
    public private(set) var apdusProcessed = 0
    /// Commands refused with CMD_SLOT_BUSY.
    public private(set) var slotBusyRefusals = 0
    /// Character-level readers: how often each I/O line fault (``CharacterLineFault/name``, or
    /// `corruptT1Block`) actually spoiled what the card sent.
    public private(set) var characterLineFaultsShown: [String: Int] = [:]

    private enum Channel { case bulkIn, interrupt }

    public init(
        configuration: VirtualReaderConfiguration = VirtualReaderConfiguration(),
        clock: any ElapsedClock = RealClock(),
        logger: Logger = Logger(label: "cardflow.simulator")
    ) {
        self.configuration = configuration
        self.clock = clock
        self.logger = logger
        slots = Array(repeating: VirtualSlot(), count: configuration.descriptor.slotCount)
        random = SeededRandom(seed: configuration.seed)
        chaosRandom = configuration.chaos.map { SeededRandom(seed: $0.seed) }
    }

    /// Bounds on what the reader holds for the host, so a host that never reads (or a chaos
    /// campaign) cannot make it grow: a real reader holds one answer and the latest event.
    /// Bulk-IN messages waiting to be read; beyond this the oldest is dropped.
    public static let maxQueuedBulkIn = 256
    /// Interrupt-IN messages waiting to be read; beyond this the oldest is dropped.
    public static let maxQueuedInterrupts = 32
    /// Pending injected faults above which chaos adds no more.
    public static let maxQueuedFaults = 8
    /// The longest command APDU the reader assembles from wLevelParameter chaining (an
    /// extended APDU); a longer chain is refused with bError "bad wLevelParameter".
    public static let maxChainedCommandLength = 65_544

    // MARK: - Cards

    /// Puts a card on the reader (queues NotifySlotChange).
    public func insert(_ card: any VirtualCard, slot: Int = 0) {
        cancelPlannedMoves(slot: slot)
        place(card, slot: slot)
    }

    /// Takes the card away (queues NotifySlotChange) and returns it with its current contents.
    ///
    /// A card put in or taken away by hand ends what was planned for the slot: a lifted card
    /// does not come back afterwards, and a lift planned for the last card does not strike the
    /// next one.
    @discardableResult
    public func removeCard(slot: Int = 0) -> (any VirtualCard)? {
        cancelPlannedMoves(slot: slot)
        return takeCard(slot: slot)
    }

    private func cancelPlannedMoves(slot: Int) {
        if liftPlan?.slot == slot { liftPlan = nil }
        if scheduledReturn?.slot == slot { scheduledReturn = nil }
    }

    private func place(_ card: any VirtualCard, slot: Int) {
        guard slots.indices.contains(slot) else { return }
        slots[slot].cardLeft()
        var card = card
        if var aware = card as? any ReaderAwareVirtualCard {
            aware.placed(onReaderWithVendorID: configuration.vendorID, productID: configuration.productID)
            card = aware
        }
        slots[slot].card = card
        notifySlotChange(slot: slot)
    }

    private func takeCard(slot: Int) -> (any VirtualCard)? {
        guard slots.indices.contains(slot), let card = slots[slot].card else { return nil }
        lastRemovedCards[slot] = card
        slots[slot].cardLeft()
        notifySlotChange(slot: slot)
        return card
    }

    /// The card in a slot, with its current contents (nil when empty).
    public func card(slot: Int = 0) -> (any VirtualCard)? {
        applyScheduledEvents()
        return slots.indices.contains(slot) ? slots[slot].card : nil
    }

    /// Puts (or takes away) additional cards in the reader's field next to the card in the
    /// slot. While there are any, the reader cannot activate a card: power-on fails (card present,
    /// mute), which sessions report as a typed error.
    public func setExtraCardsInField(_ count: Int, slot: Int = 0) {
        guard slots.indices.contains(slot) else { return }
        slots[slot].extraCardsInField = max(0, count)
        if count > 0 { slots[slot].powered = false }
    }

    /// The card in the slot, or, when the slot is empty, the card that last left it (for saving
    /// its contents after it was lifted).
    public func lastKnownCard(slot: Int = 0) -> (any VirtualCard)? {
        applyScheduledEvents()
        guard slots.indices.contains(slot) else { return nil }
        return slots[slot].card ?? lastRemovedCards[slot]
    }

    /// After `apdus` more APDUs reach the card, it leaves the field. With `returnAfter` it comes
    /// back after that long, or `replacement` comes instead (a different card of the same kind).
    public func liftCard(
        afterAPDUs apdus: Int, slot: Int = 0, returnAfter: Duration? = nil,
        replacement: (any VirtualCard)? = nil
    ) {
        liftPlan = (slot, max(0, apdus), returnAfter, replacement)
        if apdus <= 0 { executeLift() }
    }

    /// Queues a misbehaviour for the next command(s); interrupt messages are queued at once.
    public func inject(_ fault: ReaderFault) {
        switch fault {
        case .unknownInterruptMessage:
            queueInterrupt([0x5F, 0x01, 0x02])
        case .shortInterruptMessage:
            queueInterrupt([CCIDInterruptMessage.slotChangeType])
        default:
            faults.append(fault)
        }
    }

    /// Faults injected and not yet shown (chaos adds none while this many are pending).
    public var pendingFaultCount: Int { faults.count }

    /// Unplugs the reader: every pending and later transfer fails with `noDevice`.
    public func unplug() {
        unplugged = true
        wakeAll()
    }

    // MARK: - USB side

    /// Handles one bulk-OUT transfer.
    public func receiveBulkOut(_ bytes: [UInt8]) throws(USBTransportError) {
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
        let command: CCIDCommand
        do {
            command = try CCIDCommand(decoding: bytes)
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
        if bytes.count > Int(configuration.descriptor.maxMessageLength) {
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
        handle(command)
    }

    /// How many slots may work on a command at once (bMaxCCIDBusySlots; readers declaring 0
    /// work one at a time).
    public nonisolated var concurrentSlotLimit: Int {
        let descriptor = configuration.descriptor
        return min(max(Int(descriptor.maxBusySlots), 1), descriptor.slotCount)
    }

    /// The slots of a multi-slot reader still working on a command (their answer is not ready).
    private func busySlots() -> Set<UInt8> {
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
    private func isBusy(for command: CCIDCommand) -> Bool {
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
    private func deliverableIndex(at now: Duration) -> Int? {
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

    // MARK: - Command handling

    private func handle(_ command: CCIDCommand) {
        let index = Int(command.slot)
        let readerTime = configuration.timing.readerOnlyTime
        switch command.kind {
        case .getSlotStatus:
            reply(status(command, icc: slots[index].iccStatus), delay: readerTime)
        case .iccPowerOn:
            guard var card = slots[index].card else {
                reply(
                    CCIDResponse(
                        slot: command.slot, sequence: command.sequence, state: .init(icc: .absent, command: .failed),
                        errorCode: CCIDSlotError.iccMute.rawValue, kind: .dataBlock(chainParameter: 0, data: [])),
                    delay: readerTime)
                return
            }
            if slots[index].extraCardsInField > 0 {
                // Two cards answer the anticollision: the reader cannot activate either, and
                // reports a present but mute card, as contactless readers do.
                reply(
                    CCIDResponse(
                        slot: command.slot, sequence: command.sequence,
                        state: .init(icc: .presentInactive, command: .failed),
                        errorCode: CCIDSlotError.iccMute.rawValue, kind: .dataBlock(chainParameter: 0, data: [])),
                    delay: readerTime)
                return
            }
            card.powerOn()
            slots[index].card = card
            slots[index].powered = true
            slots[index].commandChain = nil
            slots[index].pendingResponse = []
            slots[index].t1 = nil
            slots[index].t0 = nil
            slots[index].contactLink = nil
            slots[index].ppsAllowed = false
            slots[index].characterLine = nil
            let level = configuration.descriptor.exchangeLevel
            if level == .tpdu || level == .character {
                if let interface = card.contactInterface {
                    slots[index].contactLink = ContactLink(
                        interface: interface,
                        readerNegotiates: configuration.descriptor.features.contains(.automaticParameterNegotiation))
                } else {
                    // A contactless card behind a TPDU reader: the reader frames T=1 whatever
                    // the synthesised ATR lists first.
                    slots[index].t1 = T1CardEndpoint(ifsc: 254)
                    slots[index].ppsAllowed = true
                }
            }
            var atr = answerToReset(for: card)
            if level == .character {
                // The host drives the I/O line from here on; the reader may hand over only the
                // start of the ATR, the rest stays on the line.
                let behaviour = configuration.characterLine
                let kept = min(max(behaviour.atrBytesInPowerOn ?? atr.count, 0), atr.count)
                slots[index].characterLine = CharacterLine(
                    behaviour: behaviour, atrRest: Array(atr[kept...]),
                    supportsEnvelope: card.contactInterface?.supportsEnvelope ?? true,
                    ifsc: Int(card.contactInterface?.ifsc ?? 254),
                    checksum: card.contactInterface?.errorDetection.t1Checksum ?? .lrc)
                slots[index].t1 = nil
                atr = Array(atr[..<kept])
            }
            reply(dataBlock(command, data: atr), delay: readerTime)
        case .iccPowerOff:
            if slots[index].card != nil {
                slots[index].powered = false
                slots[index].t1 = nil
                slots[index].t0 = nil
                slots[index].contactLink = nil
                slots[index].characterLine = nil
                slots[index].ppsAllowed = false
                slots[index].commandChain = nil
                slots[index].pendingResponse = []
            }
            reply(status(command, icc: slots[index].iccStatus), delay: readerTime)
        case .xfrBlock(_, let level, let data):
            handleXfrBlock(command, level: level, data: data)
        case .getParameters:
            reply(parameters(command, slots[index].parameters), delay: readerTime)
        case .resetParameters:
            slots[index].parameters = .defaultT1
            reply(parameters(command, slots[index].parameters), delay: readerTime)
        case .setParameters(let requested):
            if var link = slots[index].contactLink, !link.readerNegotiates {
                guard setContactParameters(requested, link: &link) else {
                    reply(
                        failure(command, error: .badParameter(offset: 10), icc: slots[index].iccStatus),
                        delay: readerTime)
                    return
                }
                slots[index].contactLink = link
            }
            slots[index].parameters = requested
            reply(parameters(command, requested), delay: readerTime)
        case .escape(let data):
            if data.isEmpty {
                reply(
                    CCIDResponse(
                        slot: command.slot, sequence: command.sequence,
                        state: .init(icc: slots[index].iccStatus, command: .processed),
                        kind: .escape(Array(configuration.firmwareVersion.utf8))), delay: readerTime)
            } else {
                reply(failure(command, error: .commandNotSupported, icc: slots[index].iccStatus), delay: readerTime)
            }
        case .abort:
            abortPending(slot: command.slot, sequence: command.sequence)
            reply(status(command, icc: slots[index].iccStatus), delay: .zero)
        case .setDataRateAndClockFrequency:
            reply(
                CCIDResponse(
                    slot: command.slot, sequence: command.sequence,
                    state: .init(icc: slots[index].iccStatus, command: .processed),
                    kind: .dataRateAndClockFrequency(
                        clockFrequency: configuration.descriptor.defaultClock,
                        dataRate: configuration.descriptor.dataRate)), delay: readerTime)
        case .iccClock, .t0APDU, .mechanical, .secure:
            reply(failure(command, error: .commandNotSupported, icc: slots[index].iccStatus), delay: readerTime)
        }
    }

    private func handleXfrBlock(_ command: CCIDCommand, level: UInt16, data: [UInt8]) {
        let index = Int(command.slot)
        let readerTime = configuration.timing.readerOnlyTime
        guard slots[index].card != nil else {
            reply(failure(command, error: .iccMute, icc: .absent), delay: readerTime)
            return
        }
        guard slots[index].powered else {
            reply(failure(command, error: .iccMute, icc: .presentInactive), delay: readerTime)
            return
        }
        if takeFault(.iccMute) {
            reply(failure(command, error: .iccMute, icc: .presentActive), delay: readerTime)
            return
        }
        let maxPayload = configuration.descriptor.maxPayloadPerMessage
        switch configuration.descriptor.exchangeLevel {
        case .character:
            handleCharacterXfrBlock(command, level: level, data: data, slot: index)
        case .tpdu:
            if var link = slots[index].contactLink {
                guard !link.cardMute else {
                    reply(failure(command, error: .iccMute, icc: .presentActive), delay: readerTime)
                    return
                }
                if link.ppsAllowed, ContactLink.isPPSRequest(data) {
                    let answer = link.answerPPS(data)
                    slots[index].contactLink = link
                    if let answer {
                        reply(dataBlock(command, data: answer), delay: readerTime, cardExchange: true)
                    } else {
                        reply(failure(command, error: .iccMute, icc: .presentActive), delay: readerTime)
                    }
                    return
                }
                link.ppsAllowed = false
                slots[index].contactLink = link
                // Reader and card at different protocols or speeds: nothing readable arrives.
                guard link.inStep else {
                    reply(failure(command, error: .iccMute, icc: .presentActive), delay: readerTime)
                    return
                }
                if link.cardProtocol == 0 {
                    handleT0(command, tpdu: data, slot: index)
                    return
                }
                if slots[index].t1 == nil {
                    slots[index].t1 = T1CardEndpoint(
                        ifsc: Int(link.interface.ifsc), checksum: link.interface.errorDetection.t1Checksum)
                }
            } else if slots[index].ppsAllowed {
                slots[index].ppsAllowed = false
                if ContactLink.isPPSRequest(data) {
                    // A contactless card behind the reader runs T=1: it confirms a request for
                    // T=1 (PPS0 bits 4-1; pcsc-lite's CCID driver sends FF 01 FE) by echoing it
                    // (ISO/IEC 7816-3 §9.3), and stays mute otherwise.
                    if data[1] & 0x0F == 1 {
                        reply(dataBlock(command, data: data), delay: readerTime, cardExchange: true)
                    } else {
                        reply(failure(command, error: .iccMute, icc: .presentActive), delay: readerTime)
                    }
                    return
                }
            }
            guard var t1 = slots[index].t1 else {
                reply(failure(command, error: .iccMute, icc: .presentActive), delay: readerTime)
                return
            }
            if takeFault(.corruptT1Block) { t1.corruptNextBlockChecksum() }
            let event = t1.receive(data)
            // A storm of S(WTX) requests lasts only while the host keeps granting them; any
            // other block (a resynchronisation, a new command) ends it.
            if case .waitingTimeExtensionGranted = event {} else { slots[index].waitingTimeExtensionStorm = nil }
            switch event {
            case .send(let block):
                slots[index].t1 = t1
                replyT1Block(command, block, slot: index, delay: readerTime, cardExchange: true)
            case .commandComplete(let apdu):
                slots[index].t1 = t1
                let (response, time) = processAPDU(apdu, slot: index, usbMessages: 1)
                guard var endpoint = slots[index].t1 else {
                    // The card left during the exchange.
                    reply(failure(command, error: .iccMute, icc: slots[index].iccStatus), delay: time)
                    return
                }
                if case .waitingTimeExtensionStorm(let interval, let multiplier)? = takeFault(where: {
                    if case .waitingTimeExtensionStorm = $0 { true } else { false }
                }) {
                    slots[index].waitingTimeExtensionStorm = (multiplier, interval)
                    slots[index].pendingT1Response = response
                    let block = endpoint.requestWaitingTimeExtension(multiplier: multiplier)
                    slots[index].t1 = endpoint
                    replyT1Block(command, block, slot: index, delay: time + interval, cardExchange: true)
                    return
                }
                if let multiplier = takeCardWaitingTimeExtension() {
                    // The card asks for more time with S(WTX) and answers once the host grants it.
                    slots[index].pendingT1Response = response
                    let block = endpoint.requestWaitingTimeExtension(multiplier: multiplier)
                    slots[index].t1 = endpoint
                    replyT1Block(command, block, slot: index, delay: time, cardExchange: true)
                    return
                }
                let block = endpoint.respond(with: response)
                slots[index].t1 = endpoint
                replyT1Block(command, block, slot: index, delay: time, cardExchange: true)
            case .waitingTimeExtensionGranted:
                if let (multiplier, interval) = slots[index].waitingTimeExtensionStorm {
                    // The card keeps asking for more time and never answers.
                    let block = t1.requestWaitingTimeExtension(multiplier: multiplier)
                    slots[index].t1 = t1
                    replyT1Block(command, block, slot: index, delay: readerTime + interval, cardExchange: true)
                    return
                }
                let response = slots[index].pendingT1Response ?? [0x6F, 0x00]
                slots[index].pendingT1Response = nil
                let block = t1.respond(with: response)
                slots[index].t1 = t1
                replyT1Block(command, block, slot: index, delay: readerTime, cardExchange: true)
            }
        case .shortAPDU, .extendedAPDU:
            let extended = configuration.descriptor.exchangeLevel == .extendedAPDU
            switch level {
            case CCIDLevelParameter.complete:
                slots[index].commandChain = nil
                let (response, time) = processAPDU(data, slot: index, usbMessages: 1)
                deliver(response, for: command, slot: index, delay: time)
            case CCIDLevelParameter.begins where extended:
                slots[index].commandChain = data
                reply(dataBlock(command, data: [], chain: CCIDChainParameter.expectsMore), delay: readerTime)
            case CCIDLevelParameter.continues where extended && slots[index].commandChain != nil:
                guard (slots[index].commandChain?.count ?? 0) + data.count <= Self.maxChainedCommandLength else {
                    // A host that chains without end must not grow the reader's memory.
                    slots[index].commandChain = nil
                    reply(failure(command, error: .badParameter(offset: 8), icc: .presentActive), delay: readerTime)
                    return
                }
                slots[index].commandChain! += data
                reply(dataBlock(command, data: [], chain: CCIDChainParameter.expectsMore), delay: readerTime)
            case CCIDLevelParameter.ends where extended && slots[index].commandChain != nil:
                let apdu = slots[index].commandChain! + data
                slots[index].commandChain = nil
                // Earlier parts were answered with their own reader time; this one carries the card exchange.
                let (response, time) = processAPDU(apdu, slot: index, usbMessages: 1)
                deliver(response, for: command, slot: index, delay: time)
            case CCIDLevelParameter.nextResponsePart where !slots[index].pendingResponse.isEmpty:
                let pending = slots[index].pendingResponse
                let part = Array(pending.prefix(maxPayload))
                slots[index].pendingResponse = Array(pending.dropFirst(part.count))
                let chain =
                    slots[index].pendingResponse.isEmpty ? CCIDChainParameter.ends : CCIDChainParameter.continues
                reply(dataBlock(command, data: part, chain: chain), delay: readerTime)
            default:
                // A chaining step out of order: the offending field is wLevelParameter (offset 8).
                slots[index].commandChain = nil
                reply(failure(command, error: .badParameter(offset: 8), icc: .presentActive), delay: readerTime)
            }
        }
    }

    /// Character level: the bytes go to the card's I/O line, and exactly wLevelParameter bytes
    /// of what the card sends come back (CCID rev 1.1 §6.1.4). A card that stops sending before
    /// that many makes the reader time out: ICC_MUTE.
    private func handleCharacterXfrBlock(_ command: CCIDCommand, level: UInt16, data: [UInt8], slot index: Int) {
        guard var line = slots[index].characterLine else {
            reply(
                failure(command, error: .iccMute, icc: slots[index].iccStatus),
                delay: configuration.timing.readerOnlyTime)
            return
        }
        if takeFault(.corruptT1Block) {
            line.corruptNextT1Block()
            characterLineFaultsShown["corruptT1Block", default: 0] += 1
        }
        if case .characterLine(let fault)? = takeFault(where: { if case .characterLine = $0 { true } else { false } }) {
            line.inject(fault)
        }
        var link = slots[index].contactLink
        var time = configuration.timing.readerOnlyTime
        let card = slots[index].card
        line.receive(
            data, link: &link, takesData: { card?.t0TakesData(header: $0) ?? false },
            process: { apdu in
                let (response, cardTime) = processAPDU(apdu, slot: index, usbMessages: 1)
                time = cardTime
                // A card lifted by the exchange answers nothing.
                return slots[index].card == nil ? [] : response
            })
        // The card may have left during the exchange (lift-after): its line is gone with it.
        guard slots[index].card != nil else {
            reply(failure(command, error: .iccMute, icc: slots[index].iccStatus), delay: time)
            return
        }
        if let shown = line.takeFaultShown() { characterLineFaultsShown[shown, default: 0] += 1 }
        let wanted = Int(level)
        let answer = line.read(wanted) ?? (line.behaviour.readerReturnsShortAnswers ? line.drain() : nil)
        if answer == nil { _ = line.drain() }
        slots[index].characterLine = line
        slots[index].contactLink = link
        if let answer {
            reply(dataBlock(command, data: answer), delay: time, cardExchange: true)
        } else {
            reply(failure(command, error: .iccMute, icc: .presentActive), delay: time)
        }
    }

    /// One T=0 TPDU with a contact card (the reader collapses the procedure bytes).
    private func handleT0(_ command: CCIDCommand, tpdu: [UInt8], slot index: Int) {
        let readerTime = configuration.timing.readerOnlyTime
        var endpoint =
            slots[index].t0
            ?? T0CardEndpoint(supportsEnvelope: slots[index].contactLink?.interface.supportsEnvelope ?? true)
        switch endpoint.receive(tpdu) {
        case .respond(let answer):
            slots[index].t0 = endpoint
            reply(dataBlock(command, data: answer), delay: readerTime, cardExchange: true)
        case .process(let apdu):
            let (response, time) = processAPDU(apdu, slot: index, usbMessages: 1)
            guard slots[index].card != nil, !response.isEmpty else {
                // The card left during the exchange.
                reply(failure(command, error: .iccMute, icc: slots[index].iccStatus), delay: time)
                return
            }
            let answer = endpoint.respond(with: response)
            slots[index].t0 = endpoint
            reply(dataBlock(command, data: answer), delay: time, cardExchange: true)
        }
    }

    /// SetParameters with a contact card: the reader takes the protocol and speed; a reader
    /// that makes the PPS itself (dwFeatures 0x80) negotiates them with the card first, runs
    /// at what the card accepted, and refuses when the card refuses (both then keep theirs).
    private func setContactParameters(_ requested: CCIDProtocolParameters, link: inout ContactLink) -> Bool {
        let protocolNumber = requested.protocolNumber
        guard protocolNumber <= 1, let factors = requested.bytes.first else { return false }
        if configuration.descriptor.features.contains(.automaticPPS), link.ppsAllowed,
            protocolNumber != link.cardProtocol || factors != link.cardFactors
        {
            var trial = link
            let request: [UInt8] = [0xFF, 0x10 | protocolNumber, factors, 0xFF ^ 0x10 ^ protocolNumber ^ factors]
            guard trial.answerPPS(request) != nil, !trial.cardMute else { return false }
            // The reader runs at what the card accepted (it may have kept Fd/Dd).
            link = trial
            link.readerProtocol = protocolNumber
            link.readerFactors = trial.cardFactors
            return true
        }
        link.readerProtocol = protocolNumber
        link.readerFactors = factors
        if protocolNumber == 1, requested.bytes.count > 1 {
            link.readerT1ErrorDetection = requested.bytes[1] & 0x01 != 0 ? .crc : .lrc
        }
        return true
    }

    /// A T=1 block from the card at TPDU level, as the reader frames it by the EDC length it
    /// was set to (``ContactLink/blockAsReaderFramesIt(_:)``).
    private func replyT1Block(
        _ command: CCIDCommand, _ block: [UInt8], slot index: Int, delay: Duration, cardExchange: Bool
    ) {
        guard let link = slots[index].contactLink else {
            reply(dataBlock(command, data: block), delay: delay, cardExchange: cardExchange)
            return
        }
        if let framed = link.blockAsReaderFramesIt(block) {
            reply(dataBlock(command, data: framed), delay: delay, cardExchange: cardExchange)
        } else {
            reply(failure(command, error: .iccMute, icc: .presentActive), delay: delay)
        }
    }

    /// Sends a response APDU, chaining it over several DataBlocks when it exceeds one message.
    private func deliver(_ response: [UInt8], for command: CCIDCommand, slot index: Int, delay: Duration) {
        let maxPayload = configuration.descriptor.maxPayloadPerMessage
        // An empty answer means the card was gone before the command reached it.
        guard !response.isEmpty else {
            reply(failure(command, error: .iccMute, icc: slots[index].iccStatus), delay: delay)
            return
        }
        if response.count <= maxPayload {
            reply(dataBlock(command, data: response), delay: delay, cardExchange: true)
        } else {
            slots[index].pendingResponse = Array(response.dropFirst(maxPayload))
            reply(
                dataBlock(command, data: Array(response.prefix(maxPayload)), chain: CCIDChainParameter.begins),
                delay: delay, cardExchange: true)
        }
    }

    /// Runs one APDU on the card (PC/SC part 3 pseudo-APDUs are answered by the reader) and
    /// returns the answer with the time the exchange takes.
    private func processAPDU(_ apdu: [UInt8], slot index: Int, usbMessages: Int) -> ([UInt8], Duration) {
        guard var card = slots[index].card else { return ([], configuration.timing.readerOnlyTime) }
        let response: [UInt8]
        let cardTime: Duration
        let responder =
            card.readerPassThroughInstructions.isEmpty
            ? part3
            : PCSCPart3Responder(passThroughInstructions: card.readerPassThroughInstructions)
        if let answer = responder.response(to: apdu, card: card) {
            // Answered by the reader itself: the card sees nothing, so it does not count as one
            // of the card's APDUs (lift-after counts what reaches the card).
            let time = configuration.timing.exchangeTime(
                commandLength: apdu.count, responseLength: answer.count,
                cardTime: .zero, usbMessages: usbMessages)
            return (answer, time)
        } else {
            apdusProcessed += 1
            cardTime = card.processingTime(for: apdu)
            response = card.process(apdu)
            slots[index].card = card
        }
        let time = configuration.timing.exchangeTime(
            commandLength: apdu.count, responseLength: response.count,
            cardTime: cardTime, usbMessages: usbMessages)
        if var plan = liftPlan, plan.slot == index {
            plan.remainingAPDUs -= 1
            liftPlan = plan
            if plan.remainingAPDUs <= 0 { executeLift() }
        }
        return (response, time)
    }

    // MARK: - Scheduled card movement

    /// Stops a time-extension storm and drops its frame that is still waiting to go out.
    private func endStorm(_ held: TimeExtensionStorm) {
        storm = nil
        bulkInQueue.removeAll { entry in
            guard let frame = try? CCIDResponse(decoding: entry.bytes) else { return false }
            return frame.slot == held.slot && frame.sequence == held.sequence && frame.state.command == .timeExtension
        }
    }

    private func executeLift() {
        guard let plan = liftPlan else { return }
        liftPlan = nil
        guard let card = takeCard(slot: plan.slot) else { return }
        if let returnAfter = plan.returnAfter {
            scheduledReturn = (plan.slot, clock.now() + returnAfter, plan.replacement ?? card)
            wake(.interrupt)
        }
    }

    private func applyScheduledEvents() {
        if let pending = scheduledReturn, clock.now() >= pending.at {
            scheduledReturn = nil
            place(pending.card, slot: pending.slot)
        }
    }

    private func notifySlotChange(slot: Int) {
        let changes = slots.indices.map {
            CCIDInterruptMessage.SlotChange(slot: $0, cardPresent: slots[$0].card != nil, changed: $0 == slot)
        }
        queueInterrupt(CCIDInterruptMessage.slotChange(changes).encoded())
    }

    /// Queues an interrupt-IN message (readers without the endpoint drop it); the oldest goes
    /// when nobody reads them.
    private func queueInterrupt(_ message: [UInt8]) {
        guard configuration.hasInterruptEndpoint else { return }
        if interruptQueue.count >= Self.maxQueuedInterrupts { interruptQueue.removeFirst() }
        interruptQueue.append(message)
        wake(.interrupt)
    }

    // MARK: - Abort

    private func abortPending(slot: UInt8, sequence: UInt8) {
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

    // MARK: - Replies

    private func reply(_ response: CCIDResponse, delay: Duration, cardExchange: Bool = false) {
        var response = response
        if response.state.command == .processed { response.errorCode = configuration.errorCodeOnSuccess }
        if cardExchange, let index = faults.firstIndex(where: { if case .timeExtensions = $0 { true } else { false } }),
            case .timeExtensions(let count, let multiplier) = faults.remove(at: index)
        {
            for _ in 0..<count {
                let extensionFrame = CCIDResponse(
                    slot: response.slot, sequence: response.sequence,
                    state: .init(icc: .presentActive, command: .timeExtension),
                    errorCode: multiplier, kind: .dataBlock(chainParameter: 0, data: []))
                enqueue(extensionFrame.encoded(), delay: .zero)
            }
        }
        if cardExchange,
            case .timeExtensionStorm(let interval, let multiplier)? = takeFault(where: {
                if case .timeExtensionStorm = $0 { true } else { false }
            })
        {
            // The card never answers; the reader keeps asking for more time instead, the first
            // time at once (before the host's first timeout), then every `interval`.
            storm = TimeExtensionStorm(
                slot: response.slot, sequence: response.sequence, multiplier: multiplier,
                interval: interval, nextFrameAt: clock.now())
            return
        }
        if takeFault(.wrongSequence) { response.sequence &+= 1 }
        if takeFault(.randomSequence) { response.sequence = UInt8(truncatingIfNeeded: random.next()) }
        var bytes = response.encoded()
        if takeFault(.shortResponse) { bytes = Array(bytes.prefix(max(1, bytes.count / 2))) }
        if takeFault(.garbledResponse) {
            let length = Int(random.next() % 40) + 1
            bytes = (0..<length).map { _ in UInt8(truncatingIfNeeded: random.next()) }
        }
        if takeFault(.oversizedResponse), case .dataBlock(let chain, let data) = response.kind {
            // One byte more than the host's buffer for this reader can take.
            let padding = CCIDDriver.readBufferLength(for: configuration.descriptor) + 1 - bytes.count
            response.kind = .dataBlock(
                chainParameter: chain, data: data + [UInt8](repeating: 0x90, count: max(padding, 1)))
            bytes = response.encoded()
        }
        if case .lengthFieldMismatch(let declared)? = takeFault(where: {
            if case .lengthFieldMismatch = $0 { true } else { false }
        }), bytes.count >= ccidHeaderLength {
            bytes.replaceSubrange(
                1..<5,
                with: [
                    UInt8(truncatingIfNeeded: declared), UInt8(truncatingIfNeeded: declared >> 8),
                    UInt8(truncatingIfNeeded: declared >> 16), UInt8(truncatingIfNeeded: declared >> 24),
                ])
        }
        if takeFault(.emptyTransfer) { enqueue([], delay: .zero) }
        if takeFault(.stall) { stallNextRead = true }
        enqueue(bytes, delay: delay)
        if takeFault(.duplicateResponse) { enqueue(bytes, delay: delay) }
    }

    private func answerMalformed(_ bytes: [UInt8], error: CCIDFrameError) {
        // Copy bSlot/bSeq when the header got through, as a reader does.
        let slot = bytes.count > 5 ? bytes[5] : 0
        let sequence = bytes.count > 6 ? bytes[6] : 0
        let code: CCIDSlotError
        switch error {
        case .unknownMessageType: code = .commandNotSupported
        case .invalidField(_, let offset, _): code = .badParameter(offset: UInt8(offset))
        default: code = .badParameter(offset: 1)
        }
        let icc = slots.indices.contains(Int(slot)) ? slots[Int(slot)].iccStatus : .absent
        let response = CCIDResponse(
            slot: slot, sequence: sequence, state: .init(icc: icc, command: .failed),
            errorCode: code.rawValue, kind: .slotStatus(clockStatus: 0))
        enqueue(response.encoded(), delay: configuration.timing.readerOnlyTime)
    }

    private func enqueue(_ bytes: [UInt8], delay: Duration) {
        if bulkInQueue.count >= Self.maxQueuedBulkIn { bulkInQueue.removeFirst() }
        bulkInQueue.append((bytes, delay == .zero ? .zero : clock.now() + delay))
        wake(.bulkIn)
    }

    private func takeCardWaitingTimeExtension() -> UInt8? {
        guard let index = faults.firstIndex(where: { if case .cardWaitingTimeExtension = $0 { true } else { false } }),
            case .cardWaitingTimeExtension(let multiplier) = faults.remove(at: index)
        else { return nil }
        return multiplier
    }

    /// Removes and returns the first pending fault that `matches`.
    private func takeFault(where matches: (ReaderFault) -> Bool) -> ReaderFault? {
        guard let index = faults.firstIndex(where: matches) else { return nil }
        return faults.remove(at: index)
    }

    private func takeFault(_ fault: ReaderFault) -> Bool {
        guard let index = faults.firstIndex(of: fault) else { return false }
        faults.remove(at: index)
        return true
    }

    private func status(_ command: CCIDCommand, icc: CCIDSlotState.ICCStatus) -> CCIDResponse {
        CCIDResponse(
            slot: command.slot, sequence: command.sequence, state: .init(icc: icc, command: .processed),
            kind: .slotStatus(clockStatus: 0))
    }

    private func dataBlock(_ command: CCIDCommand, data: [UInt8], chain: UInt8 = CCIDChainParameter.complete)
        -> CCIDResponse
    {
        CCIDResponse(
            slot: command.slot, sequence: command.sequence, state: .init(icc: .presentActive, command: .processed),
            kind: .dataBlock(chainParameter: chain, data: data))
    }

    private func parameters(_ command: CCIDCommand, _ parameters: CCIDProtocolParameters) -> CCIDResponse {
        CCIDResponse(
            slot: command.slot, sequence: command.sequence,
            state: .init(icc: slots[Int(command.slot)].iccStatus, command: .processed), kind: .parameters(parameters))
    }

    /// A failed answer of the type the command expects (DataBlock for card exchanges).
    private func failure(_ command: CCIDCommand, error: CCIDSlotError, icc: CCIDSlotState.ICCStatus) -> CCIDResponse {
        let kind: CCIDResponse.Kind
        switch command.messageType.responseType {
        case .dataBlock: kind = .dataBlock(chainParameter: 0, data: [])
        case .parameters: kind = .parameters(.other(protocolNumber: 0, data: []))
        case .escapeResponse: kind = .escape([])
        default: kind = .slotStatus(clockStatus: 0)
        }
        return CCIDResponse(
            slot: command.slot, sequence: command.sequence, state: .init(icc: icc, command: .failed),
            errorCode: error.rawValue, kind: kind)
    }

    private func answerToReset(for card: any VirtualCard) -> [UInt8] {
        ContactlessATR.atr(for: card.technology)
    }

    // MARK: - Waiting

    private func waitForData(_ channel: Channel, until deadline: Duration) async {
        let id = nextWaiterID
        nextWaiterID &+= 1
        let clock = self.clock
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                if Task.isCancelled {
                    continuation.resume()
                    return
                }
                let timer = Task {
                    try? await clock.suspend(until: deadline)
                    self.expire(id)
                }
                waiters[id] = (channel, continuation, timer)
            }
        } onCancel: {
            Task { await self.expire(id) }
        }
    }

    private func expire(_ id: UInt64) {
        guard let waiter = waiters.removeValue(forKey: id) else { return }
        waiter.timer?.cancel()
        waiter.continuation.resume()
    }

    private func wake(_ channel: Channel) {
        for (id, waiter) in waiters where waiter.channel == channel {
            waiters[id] = nil
            waiter.timer?.cancel()
            waiter.continuation.resume()
        }
    }

    private func wakeAll() {
        for (_, waiter) in waiters {
            waiter.timer?.cancel()
            waiter.continuation.resume()
        }
        waiters.removeAll()
    }
}
