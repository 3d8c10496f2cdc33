import CardFlowAsyncAdmission
import Logging

/// The host side of one USB CCID interface: it frames commands, matches answers by bSeq,
/// follows time extensions, chains extended APDUs, chooses protocol and speed for contact cards
/// (PPS, SetParameters), runs T=0 or T=1 for TPDU readers, and aborts a transfer when the
/// calling task is cancelled.
///
/// One driver serves one CCID interface (a "reader") and all its slots. Operations on one slot
/// run one at a time in arrival order; operations on different slots run side by side, with at
/// most bMaxCCIDBusySlots commands outstanding on the device (``concurrentSlotLimit``). One task
/// reads the bulk-IN pipe while anyone waits and hands each answer to the slot it names, so a
/// slow card in one slot does not hold another slot's answer. It moves bytes: APDU semantics
/// (status words, GET RESPONSE) live in `CardFlow`.
///
/// ```swift
/// let driver = CCIDDriver(transport: transport, descriptor: descriptor, logger: logger)
/// let atr = try await driver.powerOn()
/// let response = try await driver.transmit([0x00, 0xA4, 0x04, 0x00, 0x00])
/// ```
public actor CCIDDriver {
    public nonisolated let descriptor: CCIDClassDescriptor
    public nonisolated let configuration: CCIDDriverConfiguration
    public nonisolated let interfaceNumber: UInt8
    let transport: any USBTransport
    let logger: Logger
    /// The logger's handler, read once: each message asks it for the level (and at trace level
    /// hands it the message's line) without the logger's copy-on-write box and its exclusivity
    /// checks, a visible share of a traced APDU. Same answers and records: `logger` never
    /// changes, its level is the handler's, and the handler adds its own metadata either way.
    private let logHandler: any LogHandler
    private let readBufferLength: Int
    private let timeSource: any CCIDTimeSource
    /// The time limit of the operation now running on each slot. Its clock starts with the
    /// operation's first message (before any wait for a busy slot), on the reading that times
    /// that message: one clock reading less per APDU than starting it on entry, and only
    /// in-memory work lies between the two.
    private var operationBounds = SlotTable<OperationBound>()

    /// When an operation must end, and the limit that says so
    /// (``CCIDDriverConfiguration/exchangeTimeLimit`` or the caller's, the shorter).
    private struct OperationDeadline {
        var deadline: Duration
        var limit: Duration

        /// What is left at `now`; nil when it is used up.
        func left(at now: Duration) -> Duration? {
            let left = deadline - now
            return left > .zero ? left : nil
        }
    }

    private enum OperationBound {
        /// Entered, no message sent yet; the caller's own deadline, if it gave one.
        case notStarted(caller: OperationDeadline?)
        case running(OperationDeadline)
    }

    /// Whether the driver's time source reads real time (``CCIDTimeSource/measuresRealTime``):
    /// a caller's time limit measured on another real-time clock holds the same here.
    public nonisolated var measuresRealTime: Bool { timeSource.measuresRealTime }
    /// The bulk-IN pipe, read by one task and shared out by bSlot.
    let bulkIn: InboundPipe
    /// The interrupt-IN pipe, read by one task and shared out to the slots a message concerns.
    let interrupts: InboundPipe

    /// The driver runs on its bulk-IN pipe's executor. An exchange calls the pipe three times
    /// (open the slot's mailbox, wait for the answer, close it); on one serial executor each
    /// call goes straight in instead of switching between two actors and back. Neither actor
    /// blocks it (both only await), and the pipe outlives the driver, which holds it.
    public nonisolated var unownedExecutor: UnownedSerialExecutor { bulkIn.unownedExecutor }

    private var nextSequence: UInt8 = 0
    /// The bulk-OUT message being sent, rebuilt in place for each command: once the transport
    /// has taken the bytes (copied them into its transfer, or decoded them) the storage is this
    /// actor's alone again, so a message costs no allocation of its own.
    private var outgoingMessage: [UInt8] = []
    var t1Sessions = SlotTable<T1HostProtocol>()
    /// The protocol set up at power-on for each powered slot.
    var activeProtocols = SlotTable<TransmissionProtocol>()
    /// The reader's GET_DATA_RATES table: not asked yet (nil), or the answer (nil inside when
    /// the reader has no table or did not answer).
    var dataRateTable: [UInt32]?? = nil
    /// The last ATR's parse and protocol selection (`setUpProtocol`).
    var protocolSelectionMemo: ProtocolSelectionMemo?
    var poweredSlots = SlotTable<Void>()
    private var eventCounts = CCIDDriverCounters()
    /// T=1 recoveries of protocol states no longer in ``t1Sessions`` (a slot powered off or reset).
    var retiredT1Recoveries = 0

    /// What the driver has counted so far (messages, time extensions, discarded frames, aborts,
    /// T=1 recoveries).
    public var counters: CCIDDriverCounters {
        var counts = eventCounts
        counts.t1Recoveries = retiredT1Recoveries + t1Sessions.values.reduce(0) { $0 + $1.recoveries }
        return counts
    }

    /// Commands waiting for their turn because the device already has bMaxCCIDBusySlots commands
    /// outstanding (``concurrentSlotLimit``): on a multi-slot reader, how many callers a slow card
    /// in another slot is holding up right now.
    ///
    /// ```swift
    /// if await driver.commandsWaitingForABusySlot > 0 { logger.info("slots are queueing") }
    /// ```
    public var commandsWaitingForABusySlot: Int { busySlots.waitingCount }

    // Per slot: one operation at a time, in the order callers arrived.
    private var slotAdmissions = SlotTable<FIFOAdmission>()
    // Per device: at most bMaxCCIDBusySlots commands outstanding at once.
    private var busySlots: FIFOAdmission

    /// - Parameters:
    ///   - transport: the USB pipes of the CCID interface.
    ///   - descriptor: the interface's CCID class descriptor.
    ///   - interfaceNumber: the interface's number, for class requests.
    ///   - configuration: timeouts, bounds and quirks.
    ///   - timeSource: the time each operation's ``CCIDDriverConfiguration/exchangeTimeLimit``
    ///     is measured with (the monotonic system clock by default; tests pass a manual clock).
    ///   - logger: where the driver logs.
    public init(
        transport: any USBTransport, descriptor: CCIDClassDescriptor, interfaceNumber: UInt8 = 0,
        configuration: CCIDDriverConfiguration = CCIDDriverConfiguration(),
        timeSource: any CCIDTimeSource = CCIDMonotonicTime(),
        logger: Logger = Logger(label: "cardflow.ccid")
    ) {
        self.transport = transport
        self.timeSource = timeSource
        self.descriptor = descriptor
        self.interfaceNumber = interfaceNumber
        self.configuration = configuration
        self.logger = logger
        logHandler = logger.handler
        // Large enough for the longest message the reader may send, in whole 64-byte packets;
        // never more than any exchange needs, whatever dwMaxCCIDMessageLength claims.
        let readLength = Self.readBufferLength(for: descriptor)
        readBufferLength = readLength
        busySlots = FIFOAdmission(capacity: Self.concurrentSlotLimit(for: descriptor))
        bulkIn = InboundPipe(
            endpoint: "bulk-IN", unclaimed: .shownToEveryone,
            mailboxLimit: configuration.maxDiscardedFrames + 2, timeSource: timeSource, logger: logger,
            read: { timeout throws(USBTransportError) in
                try await transport.bulkIn(maxLength: readLength, timeout: timeout)
            },
            route: CCIDMessageRouting.bulkIn)
        let slotCount = descriptor.slotCount
        // NotifySlotChange carries two bits per slot: a reader with up to 256 slots needs 65 bytes.
        let interruptLength = max(64, 1 + (slotCount + 3) / 4)
        interrupts = InboundPipe(
            endpoint: "interrupt-IN", unclaimed: .dropped, mailboxLimit: 32,
            timeSource: timeSource, logger: logger,
            read: { timeout throws(USBTransportError) in
                try await transport.interruptIn(maxLength: interruptLength, timeout: timeout)
            },
            route: { CCIDMessageRouting.interrupt($0, slotCount: slotCount) })
        if descriptor.isMessageLengthClamped {
            logger.warning(
                "reader declares an absurd dwMaxCCIDMessageLength; clamping it",
                metadata: [
                    "dwMaxCCIDMessageLength": "\(descriptor.maxMessageLength)",
                    "clampedTo": "\(descriptor.usableMaxMessageLength)",
                ])
        }
    }

    /// The bulk-IN buffer size for a reader with this descriptor: the longest message it may
    /// send (dwMaxCCIDMessageLength, clamped to
    /// ``CCIDClassDescriptor/maximumUsableMessageLength``, at least a short APDU's), rounded up
    /// to whole 64-byte packets.
    public static func readBufferLength(for descriptor: CCIDClassDescriptor) -> Int {
        let longest = max(descriptor.usableMaxMessageLength, ccidHeaderLength + 261)
        return (longest + 63) / 64 * 64
    }

    /// The exchange level in use.
    public nonisolated var exchangeLevel: CCIDExchangeLevel { descriptor.exchangeLevel }

    /// How many commands on different slots may be outstanding at once: bMaxCCIDBusySlots,
    /// at least one (some readers declare 0), at most the slot count.
    public nonisolated var concurrentSlotLimit: Int { Self.concurrentSlotLimit(for: descriptor) }

    /// ``concurrentSlotLimit`` for a reader with this descriptor.
    public static func concurrentSlotLimit(for descriptor: CCIDClassDescriptor) -> Int {
        min(max(Int(descriptor.maxBusySlots), 1), descriptor.slotCount)
    }

    // MARK: - Public operations

    /// Asks the reader for the slot's state (card present, powered).
    public func slotStatus(slot: UInt8 = 0) async throws -> CCIDSlotState {
        try await exclusively(slot: slot) {
            let response = try await exchange(
                .getSlotStatus, slot: slot, timeout: configuration.readTimeout, failureIsError: false)
            // ICC_MUTE on GetSlotStatus only says "no card"; the presence bits are what count.
            if let error = response.slotError, error != .iccMute {
                throw CCIDDriverError.slotError(error, state: response.state, during: .getSlotStatus)
            }
            if response.state.icc == .absent { forgetCard(slot: slot) }
            return response.state
        }
    }

    /// Powers the card on and returns its ATR. Then chooses protocol and speed from the ATR
    /// (``ProtocolSelection``, with ``CCIDDriverConfiguration/protocolPreference``), sends the
    /// PPS at TPDU level when the reader does not, SetParameters unless the reader negotiates
    /// itself, and for T=1 at TPDU level the IFSD exchange unless the reader does it.
    ///
    /// When a PPS fails the card is reset (cold) and the driver falls back to the default
    /// speed; the ATR returned is then the one of that last reset.
    ///
    /// - Parameters:
    ///   - slot: the slot whose card is powered.
    ///   - protocolPreference: the protocol asked for this time (a session's choice);
    ///     nil uses ``CCIDDriverConfiguration/protocolPreference``.
    public func powerOn(slot: UInt8 = 0, protocolPreference: ProtocolPreference? = nil) async throws -> [UInt8] {
        try await exclusively(slot: slot) {
            forgetCard(slot: slot)
            var atr = try await powerOnSelectingVoltage(slot: slot)
            if exchangeLevel == .character { atr = try await completeCharacterATR(atr, slot: slot) }
            poweredSlots[slot] = ()
            atr = try await setUpProtocol(
                slot: slot, atr: atr, preference: protocolPreference ?? configuration.protocolPreference)
            logger.debug(
                "card powered on",
                metadata: [
                    "slot": "\(slot)", "atrLength": "\(atr.count)",
                    "protocol": "\(activeProtocols[slot].map(\.description) ?? "reader's choice")",
                ])
            return atr
        }
    }

    /// Powers the card off.
    public func powerOff(slot: UInt8 = 0) async throws {
        try await exclusively(slot: slot) {
            forgetCard(slot: slot)
            _ = try await exchange(.iccPowerOff, slot: slot, timeout: configuration.readTimeout)
        }
    }

    /// Sends one command APDU and returns the response APDU bytes (data and status word),
    /// using the reader's exchange level.
    ///
    /// At APDU level the XfrBlock is framed in `apdu`'s own storage when the caller hands over
    /// its only reference to an array with 10 bytes to spare (as `CommandAPDU.encoded()` returns
    /// one); any other array is framed as usual.
    ///
    /// - Parameters:
    ///   - apdu: the command APDU, handed over.
    ///   - slot: the slot whose card gets it.
    ///   - timeLimit: how long the exchange may take from this call on (waiting for the
    ///   slot included), on the driver's time source; nil for
    ///   ``CCIDDriverConfiguration/exchangeTimeLimit`` alone. When the shorter of the two passes,
    ///   the command is aborted (as on cancellation) and
    ///   ``CCIDDriverError/exchangeTimeLimitExceeded(limit:during:)`` says which limit it was.
    public func transmit(_ apdu: consuming [UInt8], slot: UInt8 = 0, timeLimit: Duration? = nil) async throws
        -> [UInt8]
    {
        let callerBound = timeLimit.map { OperationDeadline(deadline: timeSource.now() + $0, limit: $0) }
        return try await exclusively(slot: slot, callerBound: callerBound) {
            guard poweredSlots.contains(slot) else { throw CCIDDriverError.cardNotPowered(slot: slot) }
            // Taken out of the capture, so that the exchange below holds the only reference.
            var command: [UInt8] = []
            swap(&command, &apdu)
            switch exchangeLevel {
            case .shortAPDU: return try await transmitShort(consume command, slot: slot)
            case .extendedAPDU: return try await transmitExtended(consume command, slot: slot)
            case .tpdu, .character:
                // T=0 and T=1 run in the driver; only how a TPDU or block travels differs.
                switch activeProtocols[slot] {
                case .t0: return try await transmitT0(consume command, slot: slot)
                case .t1: return try await transmitT1(consume command, slot: slot)
                case nil: throw CCIDDriverError.cardNotPowered(slot: slot)
                }
            }
        }
    }

    /// Sends a vendor command through PC_to_RDR_Escape and returns the reader's answer. A reader
    /// that refuses it gives ``CCIDDriverError/slotError(_:state:during:)`` with its bError
    /// (CMD_NOT_SUPPORTED for a command it does not know), card or no card.
    public func escape(_ data: [UInt8], slot: UInt8 = 0) async throws -> [UInt8] {
        try await exclusively(slot: slot) {
            let response = try await exchange(.escape(data), slot: slot, timeout: configuration.readTimeout)
            guard case .escape(let answer) = response.kind else {
                throw CCIDDriverError.unexpectedResponse(response.messageType, during: .escape)
            }
            return answer
        }
    }

    /// Reads one card event from the interrupt endpoint, or nil when none came within `timeout`.
    ///
    /// This reads the pipe directly, for one consumer of the whole device's events; consumers
    /// that watch single slots side by side use ``readInterrupt(slot:timeout:)``.
    public func readInterrupt(timeout: Duration) async throws -> CCIDInterruptMessage? {
        let bytes: [UInt8]
        do throws(USBTransportError) {
            // NotifySlotChange carries two bits per slot: a reader with up to 256 slots needs 65 bytes.
            bytes = try await transport.interruptIn(
                maxLength: max(64, 1 + (descriptor.slotCount + 3) / 4), timeout: timeout)
        } catch .timeout {
            return nil
        } catch {
            throw CCIDDriverError.transport(error, during: .getSlotStatus)
        }
        do {
            return try CCIDInterruptMessage(decoding: bytes, slotCount: descriptor.slotCount)
        } catch {
            throw CCIDDriverError.malformedResponse(error, during: .getSlotStatus)
        }
    }

    // MARK: - Serialisation

    /// Runs one operation on `slot`: after the slot's earlier operations, within the exchange
    /// time limit. Operations on other slots are not held.
    ///
    /// - Parameter callerBound: the caller's own bound, if any: when it comes before the
    ///   exchange time limit it is the operation's deadline.
    @inline(__always)
    private func exclusively<T: Sendable>(
        slot: UInt8, callerBound: OperationDeadline? = nil, _ body: () async throws -> T
    ) async throws -> T {
        // A free slot is taken without a suspension point (and so without a hop back to this
        // actor after it); only a caller that must queue awaits its turn.
        if let ticket = slotAdmissions.update(slot, default: FIFOAdmission(), { $0.tryEnter() }) {
            try await waitForSlot(slot, ticket: ticket)
        }
        defer {
            operationBounds[slot] = nil
            leaveSlot(slot)
        }
        try Task.checkCancellation()
        operationBounds[slot] = .notStarted(caller: callerBound)
        return try await body()
    }

    /// The deadline of the operation running on `slot`; its first message starts its clock at
    /// `now` (the time source's reading, taken by a caller that needs it anyway).
    private func operationDeadline(slot: UInt8, now: Duration) -> OperationDeadline {
        let limit = configuration.exchangeTimeLimit
        switch operationBounds[slot] {
        case .running(let deadline):
            return deadline
        case .notStarted(let caller):
            var deadline = OperationDeadline(deadline: now + limit, limit: limit)
            if let caller, caller.deadline < deadline.deadline { deadline = caller }
            operationBounds[slot] = .running(deadline)
            return deadline
        case nil:
            // A message outside an operation is an operation of its own.
            return OperationDeadline(deadline: now + limit, limit: limit)
        }
    }

    /// Waits for `ticket`'s turn on `slot` (the slot was busy when it was asked for).
    private func waitForSlot(_ slot: UInt8, ticket: UInt64) async throws {
        try await FIFOAdmission.wait(
            enqueue: { continuation in
                slotAdmissions.update(slot, default: FIFOAdmission()) { $0.enqueue(ticket, continuation) }
            },
            cancel: { await self.cancelSlotWaiter(slot: slot, ticket: ticket) })
    }

    private func leaveSlot(_ slot: UInt8) {
        slotAdmissions.update(slot) { $0.leave() }
    }

    private func cancelSlotWaiter(slot: UInt8, ticket: UInt64) {
        slotAdmissions.update(slot) { $0.cancel(ticket) }
    }

    /// Waits for `ticket`'s turn among the device's bMaxCCIDBusySlots outstanding commands.
    private func waitForBusySlot(_ ticket: UInt64) async throws {
        try await FIFOAdmission.wait(
            enqueue: { busySlots.enqueue(ticket, $0) }, cancel: { await self.cancelBusySlotWaiter(ticket) })
    }

    private func leaveBusySlot() {
        busySlots.leave()
    }

    private func cancelBusySlotWaiter(_ ticket: UInt64) {
        busySlots.cancel(ticket)
    }

    // MARK: - Message exchange

    /// Sends one command and returns its answer, following time extensions, discarding stale
    /// frames, and aborting on cancellation. The command counts as one of the device's busy
    /// slots from before it is written until its answer (or its abort) is in.
    ///
    /// With `handingOverData`, an XfrBlock is framed in its data's own storage
    /// (``CCIDCommand/frameAroundTransferData()``): for data the caller no longer holds, such as a
    /// caller's command APDU; not for data kept for reuse (T=1 blocks), which would be copied.
    /// `answerStorage` is lent to the transport for the answer (``USBBulkInRead/storage``): the
    /// storage of an answer the caller has finished with.
    func exchange(
        _ kind: consuming CCIDCommand.Kind, slot: UInt8, timeout: Duration,
        failureIsError: Bool = true, handingOverData: Bool = false, lending answerStorage: consuming [UInt8] = []
    ) async throws -> CCIDResponse {
        guard Int(slot) < descriptor.slotCount else {
            throw CCIDDriverError.noSuchSlot(slot, slotCount: descriptor.slotCount)
        }
        // Fewer than bMaxCCIDBusySlots commands outstanding: no suspension point (see exclusively).
        if let ticket = busySlots.tryEnter() {
            // The wait counts against the operation's time limit: its clock starts here, unless
            // an earlier message of the operation started it.
            _ = operationDeadline(slot: slot, now: timeSource.now())
            try await waitForBusySlot(ticket)
        }
        defer { leaveBusySlot() }
        // Answers for the slot are collected from before the command goes out.
        await bulkIn.open(slot)
        do {
            let response = try await exchangeOnBusySlot(
                kind, slot: slot, timeout: timeout, failureIsError: failureIsError, handingOverData: handingOverData,
                answerStorage: consume answerStorage)
            await bulkIn.close(slot)
            return response
        } catch {
            await bulkIn.close(slot)
            throw error
        }
    }

    private func exchangeOnBusySlot(
        _ kind: consuming CCIDCommand.Kind, slot: UInt8, timeout: Duration,
        failureIsError: Bool, handingOverData: Bool, answerStorage: consuming [UInt8]
    ) async throws -> CCIDResponse {
        let sequence = nextSequence
        nextSequence &+= 1
        let command = CCIDCommand(slot: slot, sequence: sequence, kind: consume kind)
        let type = command.messageType
        let encoded: [UInt8]
        if handingOverData {
            encoded = (consume command).frameAroundTransferData()
        } else {
            command.encode(into: &outgoingMessage)
            encoded = outgoingMessage
        }
        if logHandler.logLevel <= .trace {
            // One string, no metadata dictionary (building and hashing one per message was a
            // tenth of a traced APDU's cost).
            logHandler.log(
                event: LogEvent(
                    level: .trace,
                    message: Logger.Message(
                        stringLiteral: CCIDTraceLine.sent(type, sequence: sequence, length: encoded.count)),
                    metadata: nil, source: nil, file: #fileID, function: #function, line: #line))
        }
        // The operation's deadline is fixed from its first message on: looked up once per exchange.
        let sending = timeSource.now()
        let deadline = operationDeadline(slot: slot, now: sending)
        let limitExceeded = CCIDDriverError.exchangeTimeLimitExceeded(limit: deadline.limit, during: type)
        // Nothing of this command has reached the reader yet: no abort needed.
        guard let leftToWrite = deadline.left(at: sending) else { throw limitExceeded }
        let writeTimeout = min(configuration.writeTimeout, leftToWrite)
        eventCounts.messagesSent += 1
        // The answer's read may start with the write (the transport decides): the first read
        // below takes it over, with the same timeout it would have asked for.
        let answerRead = USBBulkInRead(
            maxLength: readBufferLength, timeout: min(timeout, leftToWrite), storage: consume answerStorage)
        do throws(USBTransportError) {
            try await transport.bulkOut(consume encoded, timeout: writeTimeout, readingAhead: consume answerRead)
        } catch .cancelled {
            await abort(slot: slot, sequence: sequence)
            throw CancellationError()
        } catch .timeout where writeTimeout < configuration.writeTimeout {
            await abort(slot: slot, sequence: sequence)
            throw limitExceeded
        } catch {
            throw CCIDDriverError.transport(error, during: type)
        }

        var currentTimeout = timeout
        var extensions = 0
        var discarded = 0
        while true {
            // Every read is shortened to what is left of the operation's time limit, so neither
            // time extensions nor a slow trickle of frames can hold the reader beyond it.
            // One reading of the time source serves both (a clock read is a few percent of a
            // fast exchange).
            let readStarted = timeSource.now()
            guard let left = deadline.left(at: readStarted) else {
                await abort(slot: slot, sequence: sequence)
                throw limitExceeded
            }
            let readTimeout = min(currentTimeout, left)
            let bytes: [UInt8]
            do throws(USBTransportError) {
                // The bulk-IN pipe hands over the frames that name this slot.
                bytes = try await bulkIn.next(for: slot, timeout: readTimeout, since: readStarted).get()
            } catch .cancelled {
                await abort(slot: slot, sequence: sequence)
                throw CancellationError()
            } catch .timeout where readTimeout < currentTimeout {
                await abort(slot: slot, sequence: sequence)
                throw limitExceeded
            } catch {
                throw CCIDDriverError.transport(error, during: type)
            }
            let response: CCIDResponse
            do {
                response = try CCIDResponse(decodingFrame: consume bytes)
            } catch {
                throw CCIDDriverError.malformedResponse(error, during: type)
            }
            if response.sequence != sequence || response.slot != slot {
                let previous = sequence &- 1
                let tolerated =
                    configuration.quirks.contains(.acceptsPreviousSequence)
                    && response.sequence == previous && response.slot == slot
                    && response.messageType == type.responseType
                if !tolerated {
                    discarded += 1
                    eventCounts.discardedFrames += 1
                    logger.debug(
                        "discarding CCID frame with wrong bSeq/bSlot",
                        metadata: [
                            "expected": "\(sequence)", "received": "\(response.sequence)", "slot": "\(response.slot)",
                        ])
                    guard discarded <= configuration.maxDiscardedFrames else {
                        throw CCIDDriverError.sequenceMismatch(
                            expected: sequence, received: response.sequence, during: type)
                    }
                    continue
                }
            }
            if response.state.command == .timeExtension {
                extensions += 1
                eventCounts.timeExtensions += 1
                guard extensions <= configuration.maxTimeExtensions else {
                    // The reader is still working on the command: stop it, so the next one is answered.
                    await abort(slot: slot, sequence: sequence)
                    throw CCIDDriverError.timeExtensionLimitExceeded(count: extensions, during: type)
                }
                // bError carries the multiplier; the next read waits that much longer.
                let multiplier = response.errorCode == 0 || response.errorCode == 0xFF ? 1 : Int(response.errorCode)
                currentTimeout = timeout * multiplier
                logger.trace("CCID time extension", metadata: ["multiplier": "\(multiplier)"])
                continue
            }
            let expected = type.responseType
            guard
                response.messageType == expected
                    || (response.messageType == .slotStatus && response.state.command == .failed)
            else {
                throw CCIDDriverError.unexpectedResponse(response.messageType, during: type)
            }
            if failureIsError, let error = response.slotError {
                throw mapFailure(error, state: response.state, slot: slot, during: type)
            }
            return response
        }
    }

    private func mapFailure(_ error: CCIDSlotError, state: CCIDSlotState, slot: UInt8, during type: CCIDMessageType)
        -> CCIDDriverError
    {
        // An escape addresses the reader, not the card: its failure says the reader refused
        // the command, whatever the slot holds.
        if state.icc == .absent && type != .escape {
            forgetCard(slot: slot)
            return .noCard
        }
        if error == .iccMute { return .cardMute(during: type) }
        return .slotError(error, state: state, during: type)
    }

    /// The CCID abort handshake: control ABORT, then PC_to_RDR_Abort with the same bSlot/bSeq,
    /// then read the slot's frames until its SlotStatus arrives (the aborted command's own
    /// answer may still come first). Runs in a fresh task because the caller's task is already
    /// cancelled and would refuse the transfers. Other slots' exchanges go on meanwhile.
    private func abort(slot: UInt8, sequence: UInt8) async {
        eventCounts.aborts += 1
        let transport = self.transport
        let interface = interfaceNumber
        let timeout = configuration.abortTimeout
        let maxFrames = configuration.maxDiscardedFrames + 2
        let pipe = bulkIn
        let logger = self.logger
        let completed = await Task {
            let control = CCIDClassRequest.abort(slot: slot, sequence: sequence).controlRequest(interface: interface)
            _ = try? await transport.control(control, timeout: timeout)
            let command = CCIDCommand(slot: slot, sequence: sequence, kind: .abort).encoded()
            guard (try? await transport.bulkOut(command, timeout: timeout)) != nil else { return false }
            for _ in 0..<maxFrames {
                guard case .success(let bytes) = await pipe.next(for: slot, timeout: timeout) else { return false }
                if let response = try? CCIDResponse(decoding: bytes), response.messageType == .slotStatus,
                    response.sequence == sequence, response.slot == slot
                {
                    return true
                }
            }
            return false
        }.value
        if completed {
            logger.debug("CCID abort handshake completed", metadata: ["seq": "\(sequence)"])
        } else {
            logger.warning(
                "CCID abort handshake did not complete; the reader may need a reset", metadata: ["seq": "\(sequence)"])
        }
    }
}
