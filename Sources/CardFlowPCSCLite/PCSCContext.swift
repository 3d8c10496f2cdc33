import CCardFlowPCSCLite
import Logging

/// A connection to pcscd (`SCardEstablishContext`): lists readers, connects to cards, and
/// reports readers arriving and leaving.
///
/// The context lives on a thread of its own (``PCSCThreadExecutor``): every libpcsclite call
/// it and its ``PCSCCardConnection``s make runs there, never on Swift's cooperative pool, and
/// the context is only ever used from that one thread, as pcsc-lite wants. Waits for changes
/// (``readerChanges()``, ``PCSCReaderMonitor``) use further contexts on further threads, so they
/// never hold up a transmit.
///
/// ```swift
/// let context = try await PCSCContext(logger: logger)
/// guard let name = try await context.readers().first else { return }
/// let card = try await context.connect(reader: name)            // shared, T=0 or T=1
/// let atr = try await card.status().atr
/// let answer = try await card.transmit([0x00, 0xA4, 0x04, 0x00, 0x07,
///                                       0xA0, 0x00, 0x00, 0x02, 0x47, 0x10, 0x01, 0x00])
/// try await card.reconnect(initialization: .reset)             // warm reset
/// try await card.disconnect(.unpower)
/// ```
///
/// Wrapping it as a reader driver is direct: power on = ``connect(reader:share:protocols:)`` and
/// ``PCSCCardConnection/status()``'s ATR, power off = ``PCSCCardConnection/disconnect(_:)`` with
/// `.unpower`, transmit = ``PCSCCardConnection/transmit(_:)``, presence = ``PCSCReaderMonitor``.
public actor PCSCContext {
    /// The thread this context and its connections run on.
    public nonisolated let executor: PCSCThreadExecutor
    nonisolated let logger: Logger
    private var context: SCARDCONTEXT?

    public nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }

    /// Establishes a context with pcscd (the socket libpcsclite finds: `PCSCLITE_CSOCK_NAME`, or
    /// `/run/pcscd/pcscd.comm`). Throws `SCARD_E_NO_SERVICE` when pcscd is not running.
    public init(logger: Logger = Logger(label: "cardflow.pcsc")) async throws(PCSCError) {
        executor = PCSCThreadExecutor(name: "pcsc-context")
        self.logger = logger
        context = nil
        // Fully initialised: from here on this runs isolated, on the executor's thread.
        do {
            context = try PCSCContextHandle.establish()
        } catch {
            executor.shutdown()
            throw error
        }
    }

    deinit {
        // The release runs on the PC/SC thread, then the thread ends (the queue is FIFO). Not an
        // isolated deinit: those break -O builds of importing modules (swiftc 6.3 "circular reference").
        if let context { executor.submit { try? PCSCContextHandle.release(context) } }
        executor.shutdown()
    }

    /// Releases the context now (`SCardReleaseContext`); its connections stop working.
    /// Releasing twice does nothing.
    public func release() throws(PCSCError) {
        guard let context else { return }
        self.context = nil
        try PCSCContextHandle.release(context)
    }

    /// The names of the readers pcscd serves (empty when there are none).
    public func readers() throws(PCSCError) -> [String] {
        try PCSCContextHandle.readers(open(.listReaders))
    }

    /// Connects to the card in `reader` (`SCardConnect`), powering it if needed.
    ///
    /// Throws `SCARD_E_UNKNOWN_READER` for a reader pcscd does not know, `SCARD_E_NO_SMARTCARD`
    /// when the reader is empty, `SCARD_E_SHARING_VIOLATION` when another client holds the card
    /// exclusively (or `exclusive` is asked while others are connected).
    public func connect(
        reader: String, share: PCSCShareMode = .shared,
        protocols: PCSCProtocols = .any
    ) throws(PCSCError) -> PCSCCardConnection {
        let context = try open(.connect)
        let name = try PCSCContextHandle.readerName(reader, for: .connect)
        var handle: SCARDHANDLE = 0
        var active: DWORD = 0
        try PCSCError.check(SCardConnect(context, name, share.rawValue, protocols.rawValue, &handle, &active), .connect)
        guard let activeProtocol = PCSCProtocol(rawValue: active) else {
            _ = SCardDisconnect(handle, UInt(SCARD_LEAVE_CARD))
            throw .malformedReply(.connect, reason: "active protocol \(active) is neither T=0 nor T=1")
        }
        logger.debug("PC/SC connected", metadata: ["reader": "\(reader)", "protocol": "\(activeProtocol)"])
        return PCSCCardConnection(context: self, reader: reader, handle: handle, activeProtocol: activeProtocol)
    }

    /// The raw context, for the connections on this executor.
    func open(_ call: PCSCCall) throws(PCSCError) -> SCARDCONTEXT {
        guard let context else { throw .closed(call) }
        return context
    }

    /// Readers arriving and leaving: first an ``PCSCReaderEvent/arrived(_:)`` for each reader
    /// present now, then each change within a second (the list is read every second, on a
    /// context and thread of its own: see the loop for why not pcscd's plug-and-play
    /// notification). Throws ``PCSCError`` when pcscd goes away (`SCARD_E_NO_SERVICE`).
    public nonisolated func readerChanges() -> AsyncThrowingStream<PCSCReaderEvent, any Error> {
        watchReaderChanges().updates
    }

    /// ``readerChanges()`` as a ``PCSCWatch``, which can be stopped and awaited (before a
    /// program exits, say).
    public nonisolated func watchReaderChanges() -> PCSCWatch<PCSCReaderEvent> {
        let (stream, continuation) = AsyncThrowingStream.makeStream(of: PCSCReaderEvent.self)
        let logger = logger
        let task = Task {
            var opened: PCSCStatusWatcher?
            do {
                let watcher = try await PCSCStatusWatcher(label: "pcsc-readers", logger: logger)
                opened = watcher
                var known: [String] = []
                while true {
                    let current = try await watcher.readers()
                    for name in known where !current.contains(name) {
                        logger.debug("PC/SC reader left", metadata: ["reader": "\(name)"])
                        continuation.yield(.departed(name))
                    }
                    for name in current where !known.contains(name) {
                        logger.debug("PC/SC reader arrived", metadata: ["reader": "\(name)"])
                        continuation.yield(.arrived(name))
                    }
                    known = current
                    // Listed again each second rather than woken by pcscd's plug-and-play
                    // notification: a client blocked in SCardGetStatusChange with a time-out holds
                    // up every other call of the process (libpcsclite 1.9.9; each SCardTransmit
                    // of a session waited for the end of that second), and pcsc-lite signals a
                    // change of the reader count against the count at the start of the call, so
                    // the notification needed a 1 s bound anyway.
                    try await Task.sleep(for: .seconds(1))
                }
            } catch is CancellationError {
                continuation.finish()
            } catch {
                continuation.finish(throwing: error)
            }
            await opened?.close()
        }
        continuation.onTermination = { _ in task.cancel() }
        return PCSCWatch(updates: stream, task: task)
    }
}
