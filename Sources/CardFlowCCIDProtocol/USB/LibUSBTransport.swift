import CCardFlowLibUSB
import Dispatch
import Logging
import Synchronization

/// A ``USBTransport`` over libusb for one opened and claimed CCID interface.
///
/// Transfers are asynchronous libusb transfers completed by the context's event thread, so no
/// Swift concurrency thread ever blocks on USB I/O. Cancelling the calling task cancels the
/// transfer, and the call throws ``USBTransportError/cancelled`` once libusb confirms it.
///
/// Obtain one from ``LibUSBContext/openTransport(for:quirks:)`` or
/// ``LibUSBContext/openDriver(_:configuration:logger:)``, and ``close()`` it when done (closing
/// the context closes it too).
///
/// - After the device is unplugged (a transfer ended with `LIBUSB_TRANSFER_NO_DEVICE`) every
///   call fails at once with ``USBTransportError/noDevice``; close the transport then.
/// - A stalled bulk or interrupt pipe is cleared (CLEAR_FEATURE(ENDPOINT_HALT)) before the call
///   throws ``USBTransportError/stall(endpoint:)``, so the next call can use the pipe again.
/// - Bulk-IN reads ask for whole packets (a multiple of wMaxPacketSize) so that a reader sending
///   more than expected yields ``USBTransportError/overflow(endpoint:)`` from this transport,
///   not a babble error from the host controller.
/// - ``bulkOut(_:timeout:readingAhead:)`` submits the bulk-IN read for the answer together with
///   the command (when no other read is on the pipe), so the answer never waits for the host to
///   come back from the write; the next ``bulkIn(maxLength:timeout:)`` takes that read over.
public final class LibUSBTransport: USBTransport, CustomStringConvertible {
    /// The reader this transport talks to.
    public let reader: USBReaderDescription
    /// The quirks it was opened with (``CCIDQuirks/noSetInterface`` skips SET_INTERFACE).
    public let quirks: CCIDQuirks
    /// The context whose event thread completes the transfers; retained so it outlives us.
    let context: LibUSBContext
    // libusb_device_handle*: libusb's handle functions are thread-safe; the pointer is valid until
    // close(), which waits until no transfer can use it any more.
    nonisolated(unsafe) private let handle: OpaquePointer
    private let logger: Logger
    private let state = Mutex(State())

    private struct State {
        var closed = false
        var deviceGone = false
        /// Transfers between registration and their finishing hook.
        var pending: [ObjectIdentifier: LibUSBTransfer] = [:]
        /// Set by close() while it waits for `pending` to drain.
        var drained: DispatchSemaphore?
        /// The bulk-IN read begun with a command, until a bulkIn call takes it over.
        var readAhead: ReadAhead?
        /// bulkIn calls under way: while one reads, no read is begun ahead.
        var bulkInCalls = 0
        var readAheadCounts = ReadAheadCounts()
    }

    /// A bulk-IN read submitted before anyone asked for it.
    private struct ReadAhead {
        let transfer: LibUSBTransfer
        /// When libusb times it out; nil: never (a timeout beyond libusb's range).
        let deadline: ContinuousClock.Instant?
    }

    /// What became of the reads begun ahead (for tests and measurements).
    struct ReadAheadCounts: Sendable, Hashable {
        /// Submitted with a command.
        var started = 0
        /// Taken over by a bulkIn call, finished or not.
        var taken = 0
        /// Their answer came in time for the caller (the read-ahead's purpose).
        var answered = 0
        /// Ended without an answer (timed out or cancelled, not by the caller's cancellation):
        /// the caller read again for whatever was left of its time, or timed out if nothing was.
        var readAgain = 0
        /// Cancelled because it would have outlasted the caller's own timeout.
        var cutShort = 0
    }

    /// What became of the reads begun ahead so far.
    var readAheadCounts: ReadAheadCounts { state.withLock { $0.readAheadCounts } }

    /// bulkIn calls under way now (for tests).
    var bulkInCallsUnderWay: Int { state.withLock { $0.bulkInCalls } }

    /// How long close() waits for cancelled transfers to come back from libusb.
    private static let drainTimeout: DispatchTimeInterval = .seconds(5)

    init(
        context: LibUSBContext, handle: OpaquePointer, reader: USBReaderDescription, quirks: CCIDQuirks, logger: Logger
    ) {
        self.context = context
        self.handle = handle
        self.reader = reader
        self.quirks = quirks
        var logger = logger
        logger[metadataKey: "usb"] = "\(reader.bus):\(reader.address)#\(reader.interfaceNumber)"
        self.logger = logger
    }

    deinit {
        close()
    }

    public var description: String { "LibUSBTransport(\(reader))" }

    /// True once ``close()`` has been called.
    public var isClosed: Bool { state.withLock { $0.closed } }

    /// True once a transfer has reported that the device is gone.
    public var isDeviceGone: Bool { state.withLock { $0.deviceGone } }

    // MARK: - USBTransport

    public nonisolated(nonsending) func bulkOut(_ data: [UInt8], timeout: Duration) async throws(USBTransportError) {
        let endpoint = reader.endpoints.bulkOut
        let name = LibUSBErrorMapping.endpointName("bulk-OUT", endpoint)
        let transfer = try LibUSBTransfer.bulk(
            handle: handle, endpoint: endpoint, data: data, length: data.count,
            timeoutMilliseconds: Self.milliseconds(timeout))
        let (actualLength, _) = try await perform(transfer, endpoint: endpoint, name: name, timeout: timeout)
        guard actualLength == data.count else {
            throw .io("\(name) sent \(actualLength) of \(data.count) bytes")
        }
    }

    public nonisolated(nonsending) func bulkOut(
        _ data: consuming [UInt8], timeout: Duration, readingAhead read: consuming USBBulkInRead
    ) async throws(USBTransportError) {
        // The lent storage goes unused: libusb writes into the transfer's own buffer.
        startReadAhead(read)
        // A failed write leaves the read in place: the next bulkIn takes it (or reads afresh once
        // it has timed out), as it would have read whatever the reader sends anyway.
        try await bulkOut(consume data, timeout: timeout)
    }

    public nonisolated(nonsending) func bulkIn(maxLength: Int, timeout: Duration) async throws(USBTransportError)
        -> [UInt8]
    {
        let endpoint = reader.endpoints.bulkIn
        let name = LibUSBErrorMapping.endpointName("bulk-IN", endpoint)
        let readAhead = state.withLock { state in
            state.bulkInCalls += 1
            defer { state.readAhead = nil }
            return state.readAhead
        }
        defer { state.withLock { $0.bulkInCalls -= 1 } }
        var timeLeft = timeout
        if let readAhead {
            let deadline = ContinuousClock.now + timeout
            if let answer = try await takeOver(readAhead, until: deadline, timeout: timeout, name: name) {
                guard answer.count <= maxLength else { throw .overflow(endpoint: name) }
                return answer
            }
            timeLeft = deadline - ContinuousClock.now
            guard timeLeft > .zero else { throw .timeout(endpoint: name, after: timeout) }
        }
        let length = Self.wholePackets(maxLength, packetSize: reader.endpoints.bulkInMaxPacketSize)
        let transfer = try LibUSBTransfer.bulk(
            handle: handle, endpoint: endpoint, length: length,
            timeoutMilliseconds: Self.milliseconds(timeLeft))
        let (_, data): (Int, [UInt8])
        do throws(USBTransportError) {
            (_, data) = try await perform(transfer, endpoint: endpoint, name: name, timeout: timeLeft)
        } catch .timeout {
            // Named with the caller's timeout, also when part of it went to a read begun ahead.
            throw .timeout(endpoint: name, after: timeout)
        }
        guard data.count <= maxLength else { throw .overflow(endpoint: name) }
        return data
    }

    public nonisolated(nonsending) func interruptIn(maxLength: Int, timeout: Duration) async throws(USBTransportError)
        -> [UInt8]
    {
        guard let endpoint = reader.endpoints.interruptIn else { throw .noInterruptEndpoint }
        let name = LibUSBErrorMapping.endpointName("interrupt-IN", endpoint)
        let length = Self.wholePackets(maxLength, packetSize: reader.endpoints.interruptInMaxPacketSize ?? 8)
        let transfer = try LibUSBTransfer.interrupt(
            handle: handle, endpoint: endpoint, length: length,
            timeoutMilliseconds: Self.milliseconds(timeout))
        let (_, data) = try await perform(transfer, endpoint: endpoint, name: name, timeout: timeout)
        guard data.count <= maxLength else { throw .overflow(endpoint: name) }
        return data
    }

    public nonisolated(nonsending) func control(_ request: USBControlRequest, timeout: Duration)
        async throws(USBTransportError) -> [UInt8]
    {
        let transfer = try LibUSBTransfer.control(
            handle: handle, request: request,
            timeoutMilliseconds: Self.milliseconds(timeout))
        let (_, data) = try await perform(transfer, endpoint: 0, name: "control", timeout: timeout)
        return data
    }

    // MARK: - Closing

    /// Cancels pending transfers and waits for libusb to return them, releases the interface
    /// (libusb re-attaches a kernel driver it detached, e.g. pn533_usb) and closes the device
    /// handle. Later calls throw. Idempotent; blocks briefly, so call it outside hot paths.
    public func close() {
        enum Step {
            case alreadyClosed, release
            case drain([LibUSBTransfer], DispatchSemaphore)
        }
        let step = state.withLock { state -> Step in
            guard !state.closed else { return .alreadyClosed }
            state.closed = true
            state.readAhead = nil
            guard !state.pending.isEmpty else { return .release }
            // Starts at 0 and is signalled once: libdispatch traps when a semaphore is freed
            // below its initial value.
            let drained = DispatchSemaphore(value: 0)
            state.drained = drained
            return .drain(Array(state.pending.values), drained)
        }
        switch step {
        case .alreadyClosed:
            return
        case .release:
            break
        case .drain(let transfers, let drained):
            logger.debug("closing with transfers pending; cancelling them", metadata: ["count": "\(transfers.count)"])
            for transfer in transfers { transfer.cancel() }
            if context.isEventThread {
                // Transfers complete on the event thread, so waiting here could never end.
                logger.error(
                    "LibUSBTransport.close() called on the libusb event thread; leaving the device handle open")
                context.transportClosed(ObjectIdentifier(self))
                return
            }
            guard drained.wait(timeout: .now() + Self.drainTimeout) == .success else {
                // Closing the handle under a transfer libusb still owns could end in a use after
                // free; leaking the handle is the lesser evil.
                logger.error("transfers did not return from libusb after cancellation; leaving the device handle open")
                context.transportClosed(ObjectIdentifier(self))
                return
            }
        }
        let result = libusb_release_interface(handle, Int32(reader.interfaceNumber))
        if result != 0 && result != LIBUSB_ERROR_NO_DEVICE.rawValue && result != LIBUSB_ERROR_NOT_FOUND.rawValue {
            logger.warning("releasing the interface failed", metadata: ["error": "\(LibUSBErrorMapping.name(result))"])
        }
        libusb_close(handle)
        context.transportClosed(ObjectIdentifier(self))
        logger.debug("USB reader closed")
    }

    // MARK: - Reading ahead

    /// Submits a bulk-IN read for the answer to the command about to be written, unless a read
    /// is on the pipe already (a bulkIn call, or a read begun earlier and not taken yet). Never
    /// fails: without a read ahead, the next bulkIn reads as usual.
    private func startReadAhead(_ read: USBBulkInRead) {
        guard state.withLock({ $0.readAhead == nil && $0.bulkInCalls == 0 }) else { return }
        let endpoint = reader.endpoints.bulkIn
        let length = Self.wholePackets(read.maxLength, packetSize: reader.endpoints.bulkInMaxPacketSize)
        let milliseconds = Self.milliseconds(read.timeout)
        guard
            let transfer = try? LibUSBTransfer.bulk(
                handle: handle, endpoint: endpoint, length: length, timeoutMilliseconds: milliseconds)
        else { return }
        let id = ObjectIdentifier(transfer)
        // libusb counts the timeout from submission, just after this.
        let deadline = milliseconds == 0 ? nil : ContinuousClock.now + .milliseconds(Int64(milliseconds))
        let accepted = state.withLock { state -> Bool in
            guard !state.closed, !state.deviceGone, state.readAhead == nil, state.bulkInCalls == 0 else {
                return false
            }
            state.pending[id] = transfer
            state.readAhead = ReadAhead(transfer: transfer, deadline: deadline)
            state.readAheadCounts.started += 1
            return true
        }
        guard accepted else { return }
        let name = LibUSBErrorMapping.endpointName("bulk-IN", endpoint)
        transfer.start { [self] outcome in
            self.transferFinished(id, outcome: outcome, endpoint: endpoint, name: name)
        }
    }

    /// Waits for a read begun ahead, for a caller whose own read would end at `deadline`.
    /// Returns its answer, or nil when the caller must read afresh (the read ahead ended
    /// without an answer, or was cut short because it would have outlasted the caller). Errors
    /// of the pipe itself (stall, overflow, a gone device) and the caller's cancellation throw.
    private nonisolated(nonsending) func takeOver(
        _ readAhead: ReadAhead, until deadline: ContinuousClock.Instant, timeout: Duration, name: String
    ) async throws(USBTransportError) -> [UInt8]? {
        // libusb works in whole milliseconds; a read ahead ending within one of the caller's
        // deadline is the caller's own.
        var cutShort = false
        if readAhead.deadline.map({ $0 > deadline + .milliseconds(1) }) ?? true, !readAhead.transfer.isFinished {
            readAhead.transfer.cancel()
            cutShort = true
        }
        let outcome = await readAhead.transfer.wait()
        let result: Result<[UInt8]?, USBTransportError>
        switch outcome {
        case .completed(LIBUSB_TRANSFER_COMPLETED, _, let data):
            result = .success(data)
        case .completed(LIBUSB_TRANSFER_TIMED_OUT, _, _), .completed(LIBUSB_TRANSFER_CANCELLED, _, _),
            .cancelledBeforeSubmission, .submissionFailed:
            // Timed out, or cancelled: by the caller's cancellation, cut short, or by close()
            // (then the caller's own read fails as closed).
            result = Task.isCancelled ? .failure(.cancelled) : .success(nil)
        case .completed(let status, _, _):
            result = .failure(LibUSBErrorMapping.transportError(status: status, endpoint: name, timeout: timeout))
        }
        state.withLock { state in
            state.readAheadCounts.taken += 1
            if cutShort { state.readAheadCounts.cutShort += 1 }
            switch result {
            case .success(.some): state.readAheadCounts.answered += 1
            case .success(.none): state.readAheadCounts.readAgain += 1
            case .failure: break
            }
        }
        return try result.get()
    }

    // MARK: - Transfers

    /// Registers, runs and maps one transfer. Returns the bytes moved and the data received.
    private nonisolated(nonsending) func perform(
        _ transfer: LibUSBTransfer, endpoint: UInt8, name: String,
        timeout: Duration
    ) async throws(USBTransportError) -> (Int, [UInt8]) {
        let id = ObjectIdentifier(transfer)
        let refusal = state.withLock { state -> USBTransportError? in
            if state.closed { return .io("the USB reader was closed") }
            if state.deviceGone { return .noDevice }
            state.pending[id] = transfer
            return nil
        }
        if let refusal { throw refusal }
        let outcome = await transfer.run { [self] outcome in
            self.transferFinished(id, outcome: outcome, endpoint: endpoint, name: name)
        }
        switch outcome {
        case .completed(let status, let actualLength, let data):
            guard status == LIBUSB_TRANSFER_COMPLETED else {
                throw LibUSBErrorMapping.transportError(status: status, endpoint: name, timeout: timeout)
            }
            return (actualLength, data)
        case .submissionFailed(let code):
            throw LibUSBErrorMapping.transportError(
                code, operation: "submitting a \(name) transfer",
                devicePath: reader.devicePath,
                interfaceNumber: reader.interfaceNumber,
                endpoint: name, timeout: timeout)
        case .cancelledBeforeSubmission:
            throw .cancelled
        }
    }

    /// The finishing hook of every transfer, on the thread that ended it (normally the event
    /// thread). Everything that still needs the device handle happens here, before the transfer
    /// leaves `pending`, so close() never frees the handle under it.
    private func transferFinished(_ id: ObjectIdentifier, outcome: LibUSBTransferOutcome, endpoint: UInt8, name: String)
    {
        var gone = false
        switch outcome {
        case .completed(LIBUSB_TRANSFER_STALL, _, _) where endpoint != 0:
            // A halted bulk/interrupt pipe stays halted until cleared; control pipes recover by
            // themselves at the next SETUP. libusb_clear_halt is a plain ioctl, no event handling.
            let result = libusb_clear_halt(handle, endpoint)
            logger.debug("\(name) stalled; halt cleared", metadata: ["result": "\(LibUSBErrorMapping.name(result))"])
        case .completed(LIBUSB_TRANSFER_NO_DEVICE, _, _):
            gone = true
        case .submissionFailed(LIBUSB_ERROR_NO_DEVICE.rawValue):
            gone = true
        default:
            break
        }
        let drained = state.withLock { state -> DispatchSemaphore? in
            if gone && !state.deviceGone {
                state.deviceGone = true
            } else {
                gone = false
            }
            state.pending[id] = nil
            guard state.pending.isEmpty, let drained = state.drained else { return nil }
            state.drained = nil
            return drained
        }
        if gone { logger.info("USB reader is gone (unplugged?)") }
        drained?.signal()
    }

    // MARK: - Helpers

    /// libusb timeouts are whole milliseconds, and 0 means "wait forever": a non-positive
    /// duration becomes 1 ms, one beyond UInt32 milliseconds (about 49 days) becomes 0.
    static func milliseconds(_ duration: Duration) -> UInt32 {
        guard duration > .zero else { return 1 }
        let (seconds, attoseconds) = duration.components
        let milliseconds = seconds.multipliedReportingOverflow(by: 1000)
        guard !milliseconds.overflow else { return 0 }
        let total = milliseconds.partialValue + (attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000
        return total >= Int64(UInt32.max) ? 0 : UInt32(max(total, 1))
    }

    /// `length` rounded up to whole packets, so a packet-sized answer never overflows the buffer.
    static func wholePackets(_ length: Int, packetSize: Int) -> Int {
        let packet = max(packetSize, 1)
        let wanted = max(length, 1)
        return (wanted + packet - 1) / packet * packet
    }
}
