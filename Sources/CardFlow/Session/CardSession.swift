import Logging
import Metrics

/// One powered card on a reader. APDUs are serialised; the session knows the card's identity,
/// can power-cycle it (``reconnect()``) and replays what the application registered
/// (selection, authentication) so that the card is back in the state the next step expects.
///
/// Get one from ``Reader/withSession(policy:_:)``, ``Reader/connect(policy:)`` or a flow step.
public final actor CardSession: CardChannel {
    public nonisolated let reader: Reader
    public private(set) var identity: CardIdentity
    let policy: SessionPolicy
    private let events: FlowEventSink?
    private var restorations: [(key: String?, restore: @Sendable (CardSession) async throws -> Void)] = []
    private var redaction = APDURedaction.none
    /// The backend's exchange, traced (swift-log at trace, secrets redacted) and measured (swift-metrics),
    /// and the closed flag: what ``transmit(_:)`` needs, outside the actor's state.
    private let channel: SessionChannel

    init(reader: Reader, atr: [UInt8], policy: SessionPolicy, events: FlowEventSink?) {
        self.reader = reader
        self.identity = CardIdentity(atr: atr, uid: nil, key: atr)
        self.policy = policy
        self.events = events
        self.channel = SessionChannel(reader: reader)
    }

    /// The session runs on its driver's executor (as its ``Reader`` does): power cycles, identity
    /// checks and restorations reach the driver with no actor hop. (``transmit(_:)`` is
    /// nonisolated and goes to the driver from wherever it is called.)
    public nonisolated var unownedExecutor: UnownedSerialExecutor {
        reader.driver.unownedExecutor
    }

    /// Adds a redaction rule for tracing: the layer that knows which bytes are secret (keys,
    /// PINs, cryptograms) says so, and the trace shows `**` instead.
    public func addRedaction(_ rule: APDURedaction) {
        redaction = redaction.combined(with: rule)
        channel.setRedaction(redaction)
    }

    /// Sends one command APDU as given (no 61xx/6Cxx handling), bounded by the policy's APDU
    /// timeout. Cancelling the calling task aborts the exchange.
    ///
    /// Nonisolated: it touches no actor state, so an APDU goes from the caller straight to the
    /// driver (which serialises exchanges) without a stop on the session's executor, and the
    /// session costs about what a bare call of the reader's ``ReaderDriver/transmit(_:)`` does.
    @inlinable @inline(__always)
    public nonisolated func transmit(_ command: CommandAPDU) async throws -> ResponseAPDU {
        // The common case (no APDU timeout, nothing traced or measured) is inlined into the caller:
        // the exchange goes to the driver without a frame of its own and without the hop to the
        // generic executor that entering a nonisolated async function costs.
        guard try needsOnlyTheDriver() else { return try await observedTransmit(command) }
        do {
            return try await reader.driver.exchange(command, encoded: command.encoded())
        } catch {
            await noteExchangeFailure(error)
            throw error
        }
    }

    /// Whether the next APDU needs nothing but the reader's driver: no APDU timeout, tracing
    /// off, metrics going nowhere (the untraced exchange is then noted for GET RESPONSE
    /// redaction). Throws ``SessionError/sessionClosed`` for a closed session.
    @usableFromInline
    nonisolated func needsOnlyTheDriver() throws(SessionError) -> Bool {
        guard !channel.isClosed else { throw SessionError.sessionClosed }
        return policy.apduTimeout == nil && channel.recordUntracedIfUnobserved()
    }

    /// After a failed exchange: tells the reader when the error means the card is gone.
    @usableFromInline
    nonisolated func noteExchangeFailure(_ error: any Error) async {
        if error.meansCardLost { await reader.noteCardLost() }
    }

    /// ``transmit(_:)`` through the session's tracing, metrics and APDU timeout (called after
    /// ``needsOnlyTheDriver()``, which has checked that the session is open).
    @usableFromInline
    nonisolated func observedTransmit(_ command: CommandAPDU) async throws -> ResponseAPDU {
        let channel = self.channel
        do {
            guard let timeout = policy.apduTimeout else { return try await channel.transmit(command) }
            // The backend holds the exchange to the timeout (the CCID driver with its own
            // transfer timeouts; others race a timer task).
            do {
                let limit = ExchangeTimeLimit(duration: timeout, clock: policy.clock)
                return try await channel.transmit(command, within: limit)
            } catch let error as ReaderExchangeTimedOut where error.limit == timeout {
                throw SessionError.timedOut(what: "APDU INS \([command.ins].hexString)", after: timeout)
            }
        } catch {
            await noteExchangeFailure(error)
            throw error
        }
    }

    /// Sends a command APDU following 61xx (GET RESPONSE) and 6Cxx (corrected Le) within the
    /// policy's bounds.
    public func send(_ command: CommandAPDU) async throws -> ResponseAPDU {
        try await send(command, policy: policy.responseChaining)
    }

    /// Registers work to replay after the card is power-cycled or comes back (for example
    /// SELECT of the application, then authentication). Replayed in registration order.
    public func onReconnect(_ restoration: @escaping @Sendable (CardSession) async throws -> Void) {
        restorations.append((nil, restoration))
    }

    /// Registers a restoration under `key`, replacing an earlier one with the same key (for
    /// example "selection": only the latest SELECT needs replaying).
    public func onReconnect(key: String, _ restoration: @escaping @Sendable (CardSession) async throws -> Void) {
        if let index = restorations.firstIndex(where: { $0.key == key }) {
            restorations[index].restore = restoration
        } else {
            restorations.append((key, restoration))
        }
    }

    /// Reports progress within the current flow step (0...1) to the flow's progress stream.
    public func reportProgress(_ fraction: Double) {
        events?.emit(.progress(min(max(fraction, 0), 1)))
    }

    /// Power-cycles the card and replays the registered restorations.
    public func reconnect() async throws {
        guard !channel.isClosed else { throw SessionError.sessionClosed }
        try? await reader.driver.powerOff()
        let atr = try await reader.driver.powerOn(protocol: policy.transmissionProtocol)
        identity.atr = atr
        try await replayRestorations()
    }

    /// Powers the card off and hands the reader to the next session. Safe to call twice; runs
    /// to completion even when the calling task is cancelled.
    public func close() async {
        guard !channel.close() else { return }
        await Task { await self.powerOffAndLeave() }.value
    }

    /// ``close()`` in the calling task, for a caller that is itself an unstructured task
    /// nobody cancels (a flow's finishing task): the power-off cannot be interrupted there, and
    /// a second task would only add its creation and a thread hand-off to every flow.
    func closeInUncancelledTask() async {
        guard !channel.close() else { return }
        await powerOffAndLeave()
    }

    /// Powers the card off and hands the reader to the next session (the session is closed).
    private func powerOffAndLeave() async {
        try? await reader.driver.powerOff()
        await reader.leaveSession(clock: policy.clock)
    }

    /// Whether ``close()`` has begun; a closed session refuses APDUs with ``SessionError/sessionClosed``.
    public nonisolated var isClosed: Bool { channel.isClosed }

    // MARK: - Identity and recovery (used by flows)

    /// Reads the UID (PC/SC part 3 `FF CA`, from readers that answer it) and computes the
    /// identity key.
    func establishIdentity() async throws {
        // Only a contactless card's ATR (the PC/SC part 3 one its reader made up) means the reader
        // answers FF CA itself; a contact card would get FF CA as its own command, with CLA FF
        // (invalid in ISO/IEC 7816-4, and read as secure messaging by some cards: vsmartcard's
        // vicc dies of it).
        guard reader.info.capabilities.readsCardUID, ATRIdentification.isContactless(atr: identity.atr) else {
            identity.key = try await policy.identity.resolve(self)
            return
        }
        do {
            let answer = try await transmit(CommandAPDU(cla: 0xFF, ins: 0xCA, p1: 0x00, p2: 0x00, le: 256))
            if answer.statusWord.isSuccess, CardIdentity.isAnticollisionUID(answer.data) { identity.uid = answer.data }
        } catch let error where error is CancellationError || error.meansCardLost {
            throw error
        } catch {
            // Readers without PC/SC part 3 GET DATA: the ATR identifies the card instead.
        }
        identity.key = try await policy.identity.resolve(self)
    }

    /// After the card came back: power it on, check it is the same card, replay restorations.
    /// Returns false (and leaves the card powered off) when it is another card.
    func resume(expecting key: [UInt8]) async throws -> Bool {
        let atr = try await reader.driver.powerOn(protocol: policy.transmissionProtocol)
        identity = CardIdentity(atr: atr, uid: nil, key: atr)
        try await establishIdentity()
        guard identity.key == key else {
            try? await reader.driver.powerOff()
            return false
        }
        try await replayRestorations()
        return true
    }

    private func replayRestorations() async throws {
        for restoration in restorations { try await restoration.restore(self) }
    }
}
