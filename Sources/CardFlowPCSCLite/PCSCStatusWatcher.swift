import CCardFlowPCSCLite
import Logging

/// A PC/SC context of its own, on a thread of its own, for `SCardGetStatusChange` waits.
///
/// A wait blocks its thread for as long as nothing changes, so it must neither share a thread
/// with transmits nor share their `SCARDCONTEXT` (pcsc-lite: one context per thread). Cancelling
/// the waiting task sends `SCardCancel` on this context (see ``PCSCWaitCancellation``).
actor PCSCStatusWatcher {
    private nonisolated let executor: PCSCThreadExecutor
    private let logger: Logger
    private var context: SCARDCONTEXT = 0
    private var isClosed = false

    nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }

    init(label: String, logger: Logger) async throws(PCSCError) {
        executor = PCSCThreadExecutor(name: label)
        self.logger = logger
        // Fully initialised: from here on this runs isolated, on the executor's thread.
        do {
            context = try PCSCContextHandle.establish()
        } catch {
            executor.shutdown()
            throw error
        }
    }

    deinit {
        // On the watcher's thread, then the thread ends (FIFO); see PCSCContext's deinit.
        if !isClosed {
            let context = context
            executor.submit { try? PCSCContextHandle.release(context) }
        }
        executor.shutdown()
    }

    /// Releases the context now (on the watcher's thread) and lets the thread end: once this
    /// returns, the watcher makes no more libpcsclite calls.
    func close() {
        guard !isClosed else { return }
        isClosed = true
        try? PCSCContextHandle.release(context)
        executor.shutdown()
    }

    /// The reader names (on this context, so a reader-list watcher needs no second thread).
    func readers() throws(PCSCError) -> [String] {
        try PCSCContextHandle.readers(context)
    }

    /// Waits until `reader`'s state differs from `knownState` and returns the new state, or nil
    /// when `timeout` (default: none) passes first. `SCARD_STATE_UNAWARE` (0) returns the
    /// current state at once. Throws `CancellationError` when the task is cancelled,
    /// ``PCSCError`` otherwise.
    func waitForChange(reader: String, knownState: UInt, timeout: Duration? = nil) async throws -> PCSCReaderStatus? {
        let name = try PCSCContextHandle.readerName(reader, for: .getStatusChange)
        let cancellation = PCSCWaitCancellation(context: context)
        let milliseconds = timeout.map {
            UInt(max(0, $0.components.seconds * 1000 + $0.components.attoseconds / 1_000_000_000_000_000))
        }
        return try await withTaskCancellationHandler {
            // The blocking call must run isolated to this watcher, on its own thread: it does
            // because the operation uses the isolated `self`. Written with only copied locals,
            // as it was, the closure was nonisolated and blocked a thread of Swift's cooperative
            // pool (one per core) for as long as nothing changed: two watches starved a 2-core
            // process. PCSCBackendTests.presenceWatchesLeaveSwiftsThreadPoolFree guards it.
            try self.blockingWait(
                reader: reader, name: name, knownState: knownState,
                milliseconds: milliseconds, cancellation: cancellation)
        } onCancel: {
            cancellation.cancel()
        }
    }

    /// The `SCardGetStatusChange` itself, on the watcher's thread (isolated and synchronous).
    private func blockingWait(
        reader: String, name: [CChar], knownState: UInt, milliseconds: UInt?, cancellation: PCSCWaitCancellation
    ) throws -> PCSCReaderStatus? {
        let context = context
        var state = SCARD_READERSTATE()
        state.dwCurrentState = knownState
        let returnValue = try name.withUnsafeBufferPointer { name throws(CancellationError) in
            state.szReader = name.baseAddress
            defer { state.szReader = nil }
            return try cancellation.run { SCardGetStatusChange(context, milliseconds ?? UInt(INFINITE), &state, 1) }
        }
        if PCSCErrorCode(returnValue: returnValue) == .timeout { return nil }
        try PCSCError.check(returnValue, .getStatusChange)
        let atrLength = Int(state.cbAtr)
        guard atrLength <= Int(MAX_ATR_SIZE) else {
            throw PCSCError.responseTooLong(.getStatusChange, length: atrLength, capacity: Int(MAX_ATR_SIZE))
        }
        let atr = withUnsafeBytes(of: state.rgbAtr) { Array($0.prefix(atrLength)) }
        return PCSCReaderStatus(reader: reader, eventState: state.dwEventState, atr: atr)
    }
}
