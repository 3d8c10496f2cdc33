import CardFlow
import CardFlowPCSCLite
import Logging

/// A reader pcscd owns, as a CardFlow ``/CardFlow/ReaderDriver``: for hosts where other software (browsers,
/// OpenSC, YubiKey tools) shares the readers through pcscd, so CardFlow cannot claim the USB
/// device itself.
///
/// Power on is `SCardConnect` (shared, with the requested protocol, or T=0 or T=1 as pcscd
/// chooses) and the ATR from `SCardStatus`; power off is `SCardDisconnect` with
/// `SCARD_UNPOWER_CARD`; presence comes from `SCardGetStatusChange` on a thread of its own
/// (``/CardFlowPCSCLite/PCSCReaderMonitor``), so changes are announced, not polled. The driver runs on its
/// context's PC/SC thread. Errors stay ``/CardFlowPCSCLite/PCSCError``s; the ones that mean the card left
/// classify as card loss.
///
/// ```swift
/// let context = try await PCSCContext(logger: logger)
/// for name in try await context.readers() {
///     let reader = Reader(info: PCSCReaderDriver.info(reader: name), driver: PCSCReaderDriver(context: context, reader: name))
/// }
/// ```
public actor PCSCReaderDriver: ReaderDriver {
    /// The reader's PC/SC name.
    public nonisolated let reader: String
    /// How this reader's family shows a ``/CardFlow/ReaderSignal``, chosen by its PC/SC name
    /// (``/CardFlow/ReaderSignalDialects``); nil when CardFlow knows none for it.
    public nonisolated let signalDialect: (any ReaderSignalDialect)?
    let context: PCSCContext
    private let logger: Logger
    private var connection: PCSCCardConnection?

    // Presence, as the monitor reports it: the latest state, notices not yet taken, waiters.
    private var monitor: Task<Void, Never>?
    private var presenceWatch: PCSCWatch<PCSCCardPresence>?
    private var isClosed = false
    private var state: CardPresence?
    private var monitorFailure: (any Error)?
    private var stateWaiters: [CheckedContinuation<Void, Never>] = []
    private var notices: [PresenceNotice] = []
    private var noticeWaiter: (id: UInt64, continuation: CheckedContinuation<PresenceNotice, any Error>)?
    private var nextWaiterID: UInt64 = 0
    /// Notices nobody took are kept up to this many (the oldest dropped): a reader whose card
    /// flickers while nobody watches must not grow memory.
    static let maximumQueuedNotices = 16

    public nonisolated var unownedExecutor: UnownedSerialExecutor { context.unownedExecutor }

    public init(context: PCSCContext, reader: String, logger: Logger = Logger(label: "cardflow.pcsc")) {
        self.context = context
        self.reader = reader
        self.logger = logger
        signalDialect = ReaderSignalDialects.dialect(for: Self.info(reader: reader))
    }

    deinit {
        monitor?.cancel()
    }

    /// Stops watching presence (and waits until the watch's PC/SC thread has left libpcsclite)
    /// and powers the card off. Call it before the program exits: libpcsclite's destructors
    /// crash a thread still inside it. Later calls fail with ``/CardFlowPCSCLite/PCSCError/closed(_:)``.
    public func close() async {
        isClosed = true
        try? await powerOff()
        let watch = presenceWatch
        presenceWatch = nil
        await watch?.stop()
        monitor?.cancel()
        await monitor?.value
        monitor = nil
        monitorEnded(PCSCError.closed(.getStatusChange))
    }

    /// The reader identity of a PC/SC reader: id `pcsc:NAME`, backend `pcsc`.
    public static func info(reader: String) -> ReaderInfo {
        ReaderInfo(
            id: "pcsc:\(reader)", name: reader, backend: "pcsc",
            capabilities: ReaderCapabilities(
                maximumCommandLength: PCSCCardConnection.maximumCommandLength,
                protocols: [.t0, .t1], announcesPresence: true))
    }

    // MARK: - Card

    public func powerOn(protocol cardProtocol: CardProtocol?) async throws -> [UInt8] {
        guard !isClosed else { throw PCSCError.closed(.connect) }
        try await powerOff()
        let protocols: PCSCProtocols =
            switch cardProtocol {
            case nil: .any
            case .t0?: .t0
            case .t1?: .t1
            }
        let connection = try await context.connect(reader: reader, share: .shared, protocols: protocols)
        self.connection = connection
        return try await connection.status().atr
    }

    public func powerOff() async throws {
        guard let connection else { return }
        self.connection = nil
        do {
            try await connection.disconnect(.unpower)
        } catch let error as PCSCError where error.meansCardLost {
            // The card is gone already: nothing left to power off.
        }
    }

    public func transmit(_ command: [UInt8]) async throws -> [UInt8] {
        guard let connection else { throw PCSCError.closed(.transmit) }
        return try await connection.transmit(command)
    }

    // MARK: - Presence

    public func presence() async throws -> CardPresence {
        if isClosed { throw PCSCError.closed(.getStatusChange) }
        startMonitorIfNeeded()
        while state == nil {
            if let monitorFailure { throw monitorFailure }
            await withCheckedContinuation { stateWaiters.append($0) }
        }
        if let monitorFailure { throw monitorFailure }
        return state ?? .absent
    }

    public func nextPresenceNotice(timeout: Duration) async throws -> PresenceNotice {
        startMonitorIfNeeded()
        if !notices.isEmpty { return notices.removeFirst() }
        if let monitorFailure { throw monitorFailure }
        guard timeout > .zero else { return .quiet }
        let id = nextWaiterID
        nextWaiterID += 1
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation {
                (continuation: CheckedContinuation<PresenceNotice, any Error>) in
                if Task.isCancelled {
                    continuation.resume(throwing: CancellationError())
                    return
                }
                noticeWaiter?.continuation.resume(returning: .quiet) // one waiter at a time: the newest
                noticeWaiter = (id, continuation)
                Task { [weak self] in
                    try? await Task.sleep(for: timeout)
                    await self?.endWait(id, with: .success(.quiet))
                }
            }
        } onCancel: {
            Task { [weak self] in await self?.endWait(id, with: .failure(CancellationError())) }
        }
    }

    private func endWait(_ id: UInt64, with result: Result<PresenceNotice, any Error>) {
        guard let waiter = noticeWaiter, waiter.id == id else { return }
        noticeWaiter = nil
        waiter.continuation.resume(with: result)
    }

    private func startMonitorIfNeeded() {
        guard monitor == nil, !isClosed else { return }
        let watch = PCSCReaderMonitor(reader: reader, logger: logger).watch()
        presenceWatch = watch
        let stream = watch.updates
        monitor = Task { [weak self] in
            do {
                for try await presence in stream {
                    guard let self else { return }
                    if case .present = presence { await self.noted(.present) } else { await self.noted(.absent) }
                }
                await self?.monitorEnded(CancellationError())
            } catch {
                await self?.monitorEnded(error)
            }
        }
    }

    private func noted(_ presence: CardPresence) {
        state = presence
        let notice: PresenceNotice = presence == .absent ? .removed : .changed
        if !wakeWaiters(with: .success(notice)) {
            notices.append(notice)
            if notices.count > Self.maximumQueuedNotices { notices.removeFirst() }
        }
    }

    private func monitorEnded(_ error: any Error) {
        monitorFailure = error
        wakeWaiters(with: .failure(error))
    }

    /// Wakes whoever waits for the state, and the notice waiter with `result`; returns whether
    /// there was a notice waiter.
    @discardableResult
    private func wakeWaiters(with result: Result<PresenceNotice, any Error>) -> Bool {
        for waiter in stateWaiters { waiter.resume() }
        stateWaiters.removeAll()
        guard let waiter = noticeWaiter else { return false }
        noticeWaiter = nil
        waiter.continuation.resume(with: result)
        return true
    }
}

extension Reader {
    /// The PC/SC reader `name` on `context`: ``PCSCReaderDriver`` with ``PCSCReaderDriver/info(reader:)``.
    /// Close its driver (``pcsc``) before the program exits.
    public init(pcsc name: String, context: PCSCContext, logger: Logger = Logger(label: "cardflow.pcsc")) {
        self.init(
            info: PCSCReaderDriver.info(reader: name),
            driver: PCSCReaderDriver(context: context, reader: name, logger: logger),
            logger: logger)
    }

    /// The PC/SC driver behind this reader, nil when another backend drives it.
    public nonisolated var pcsc: PCSCReaderDriver? { driver as? PCSCReaderDriver }
}
