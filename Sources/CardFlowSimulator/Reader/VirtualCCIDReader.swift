@_spi(CardFlowInternals) import CardFlow
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
public actor VirtualCCIDReader: DeadlineWaiting {
    public nonisolated let configuration: VirtualReaderConfiguration
    let clock: any ElapsedClock
    let logger: Logger
    let part3 = PCSCPart3Responder()

    var slots: [VirtualSlot]
    var bulkInQueue: [(bytes: [UInt8], readyAt: Duration)] = []
    /// Storage the host lent with its last command (``USBBulkInRead/storage``), taken by the
    /// answer to it: the answer is written there instead of into a new array.
    var lentAnswerStorage: [UInt8] = []
    var interruptQueue: [[UInt8]] = []
    var faults: [ReaderFault] = []
    var chaosRandom: SeededRandom?
    /// A time-extension storm in progress: the command it holds and when its next frame is due.
    struct TimeExtensionStorm {
        let slot: UInt8
        let sequence: UInt8
        let multiplier: UInt8
        let interval: Duration
        var nextFrameAt: Duration
    }
    var storm: TimeExtensionStorm?
    var unplugged = false
    var stallNextRead = false
    var random: SeededRandom
    package var deadlineWaiters = DeadlineWaiters<Channel, Void>()

    // Scheduled card movement (slot 0 of `lift-after=N`, `return-after=MS`, `swap`).
    var liftPlan: (slot: Int, remainingAPDUs: Int, returnAfter: Duration?, replacement: (any VirtualCard)?)?
    var scheduledReturn: (slot: Int, at: Duration, card: any VirtualCard)?
    var lastRemovedCards: [Int: any VirtualCard] = [:]

    /// Counters for tests and benchmarks.
    public internal(set) var commandsReceived = 0
    public internal(set) var apdusProcessed = 0
    /// Commands refused with CMD_SLOT_BUSY.
    public internal(set) var slotBusyRefusals = 0
    /// Character-level readers: how often each I/O line fault (``CharacterLineFault/name``, or
    /// `corruptT1Block`) actually spoiled what the card sent.
    public internal(set) var characterLineFaultsShown: [String: Int] = [:]

    package enum Channel: Sendable { case bulkIn, interrupt }

    public init(
        configuration: VirtualReaderConfiguration = VirtualReaderConfiguration(),
        clock: any ElapsedClock = RealClock(),
        logger: Logger = Logger(label: "cardflow.simulator")
    ) {
        self.configuration = configuration
        self.clock = clock
        self.logger = logger
        var slot = VirtualSlot()
        slot.firmware = SimulatedReaderFirmwares.firmware(
            vendorID: configuration.vendorID, productID: configuration.productID, bcdDevice: configuration.bcdDevice)
        slots = Array(repeating: slot, count: configuration.descriptor.slotCount)
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

    func cancelPlannedMoves(slot: Int) {
        if liftPlan?.slot == slot { liftPlan = nil }
        if scheduledReturn?.slot == slot { scheduledReturn = nil }
    }

    func place(_ card: any VirtualCard, slot: Int) {
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

    func takeCard(slot: Int) -> (any VirtualCard)? {
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
}
