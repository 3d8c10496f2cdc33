import CCardFlowLibUSB
import Dispatch
import Logging
import Synchronization

/// A libusb context with its own event thread: the entry point of the USB CCID driver.
///
/// ```swift
/// let context = try LibUSBContext()
/// defer { context.close() }
/// let (reader, transport, driver) = try context.openDriver(try USBReaderSelector(parsing: "usb"))
/// let atr = try await driver.powerOn()
/// transport.close()
/// ```
///
/// The context owns one `libusb_context` (never libusb's shared default context) and one
/// Foundation thread that runs libusb's event loop (see ``readers()``, ``readerEvents(pollingInterval:forcePolling:)``,
/// ``openTransport(for:quirks:)``). ``close()`` closes the transports and event streams still
/// open, stops the thread and frees the context; it also runs when the last reference goes away.
/// Transports and event streams keep their context alive. Close it only when no other call on
/// it (``readers()``, opening) is still running: libusb's context is freed then.
public final class LibUSBContext: Sendable {
    // libusb_context*: libusb's context API is thread-safe, and the pointer never changes; it is
    // freed by close(), after which no method passes it to libusb any more.
    nonisolated(unsafe) let pointer: OpaquePointer
    let logger: Logger
    private let eventThread: LibUSBEventThread
    private let state = Mutex(State())
    /// Enumerations and openings running now (``whileOpen(_:)``): ``close()`` waits for them
    /// before it frees the context. The context's own reader-event task enumerates on a
    /// concurrency thread, so a close from another task could otherwise free the context under
    /// a running `libusb_get_device_list` or a synchronous string read (a crash in libusb).
    private let callsInFlight = DispatchGroup()

    private struct State {
        var closed = false
        /// Open transports, weakly: a transport retains its context, not the reverse.
        var transports: [ObjectIdentifier: WeakTransport] = [:]
        /// Ends each open reader-event stream.
        var streamFinishers: [UInt64: @Sendable () -> Void] = [:]
        var nextStreamID: UInt64 = 0
        /// Registered on first use of hotplug events, kept until the context is freed.
        var hotplug: LibUSBHotplugDispatcher?
    }

    private struct WeakTransport {
        weak var transport: LibUSBTransport?
    }

    /// Creates a libusb context and starts its event thread.
    ///
    /// Works without any USB device, and without USB at all as long as libusb initialises
    /// (the list of readers is then empty).
    public init(logger: Logger = Logger(label: "cardflow.usb")) throws(USBTransportError) {
        var context: OpaquePointer?
        let result = libusb_init(&context)
        guard result == 0, let context else {
            throw .io("libusb_init failed: \(LibUSBErrorMapping.name(result))")
        }
        pointer = context
        self.logger = logger
        eventThread = LibUSBEventThread(context: context, logger: logger)
        eventThread.start()
        logger.debug("libusb context ready", metadata: ["hotplug": "\(Self.hasHotplug)"])
    }

    deinit {
        close()
    }

    /// True when libusb reports hotplug support (on Linux: always, with udev or netlink).
    public static var hasHotplug: Bool {
        libusb_has_capability(UInt32(LIBUSB_CAP_HAS_HOTPLUG.rawValue)) != 0
    }

    /// True once ``close()`` has been called.
    public var isClosed: Bool { state.withLock { $0.closed } }

    /// Ends the reader-event streams, closes the transports still open, stops the event thread
    /// and frees the libusb context. Idempotent. Blocks briefly (it joins the event thread).
    public func close() {
        let teardown = state.withLock { state -> (transports: [LibUSBTransport], finishers: [@Sendable () -> Void])? in
            guard !state.closed else { return nil }
            state.closed = true
            defer {
                state.transports = [:]
                state.streamFinishers = [:]
            }
            return (state.transports.values.compactMap(\.transport), Array(state.streamFinishers.values))
        }
        guard let teardown else { return }
        for finish in teardown.finishers { finish() }
        for transport in teardown.transports { transport.close() }
        // No call starts once `closed` is set; wait for those already running (they may need the
        // event thread, so it stops after them).
        callsInFlight.wait()
        eventThread.stop()
        // libusb_exit also frees the hotplug callback, so the dispatcher it pointed to may go now.
        libusb_exit(pointer)
        state.withLock { $0.hotplug = nil }
        logger.debug("libusb context closed")
    }

    /// True on the event thread (where waiting for transfers would deadlock).
    var isEventThread: Bool { eventThread.isCurrentThread }

    /// Runs `body`, which uses the libusb context, unless the context is closed; ``close()``
    /// waits for it to finish before freeing the context.
    ///
    /// - Throws: `.io("the libusb context is closed")`, or what `body` throws.
    func whileOpen<T>(_ body: () throws(USBTransportError) -> T) throws(USBTransportError) -> T {
        let admitted = state.withLock { state -> Bool in
            guard !state.closed else { return false }
            callsInFlight.enter()
            return true
        }
        guard admitted else { throw .io("the libusb context is closed") }
        defer { callsInFlight.leave() }
        return try body()
    }

    func transportOpened(_ transport: LibUSBTransport) throws(USBTransportError) {
        let accepted = state.withLock { state -> Bool in
            guard !state.closed else { return false }
            state.transports[ObjectIdentifier(transport)] = WeakTransport(transport: transport)
            return true
        }
        if !accepted { throw .io("the libusb context is closed") }
    }

    func transportClosed(_ id: ObjectIdentifier) {
        state.withLock { $0.transports[id] = nil }
    }

    /// Registers a stream's finisher; nil when the context is already closed.
    func streamOpened(finish: @escaping @Sendable () -> Void) -> UInt64? {
        state.withLock { state -> UInt64? in
            guard !state.closed else { return nil }
            let id = state.nextStreamID
            state.nextStreamID += 1
            state.streamFinishers[id] = finish
            return id
        }
    }

    func streamClosed(_ id: UInt64) {
        state.withLock { $0.streamFinishers[id] = nil }
    }

    /// The context's hotplug dispatcher, registering its libusb callback on first use.
    ///
    /// Registration happens under the state lock so that exactly one callback is ever
    /// registered: a second one could not be freed safely, because libusb may still be running
    /// a callback after `libusb_hotplug_deregister_callback` returns.
    func hotplugDispatcher() throws(USBTransportError) -> LibUSBHotplugDispatcher {
        let result = state.withLock { state -> Result<LibUSBHotplugDispatcher, USBTransportError> in
            guard !state.closed else { return .failure(.io("the libusb context is closed")) }
            if let existing = state.hotplug { return .success(existing) }
            do throws(USBTransportError) {
                let dispatcher = try LibUSBHotplugDispatcher(context: pointer, logger: logger)
                state.hotplug = dispatcher
                return .success(dispatcher)
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }
}
