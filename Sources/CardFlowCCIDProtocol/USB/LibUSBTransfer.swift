import CCardFlowLibUSB
import Synchronization

/// One asynchronous libusb transfer, awaited by a Swift task.
///
/// The life of a transfer:
/// 1. `init` allocates the `libusb_transfer` and its buffer and fills them (bulk, interrupt or
///    control); nothing else can see it yet.
/// 2. ``run(finishing:)`` stores the continuation, submits, and suspends. The completion
///    callback runs on the libusb event thread: it copies the received bytes, calls the
///    `finishing` hook, then resumes the task.
/// 3. Cancelling the task calls `libusb_cancel_transfer`; libusb then completes the transfer
///    with `LIBUSB_TRANSFER_CANCELLED` through the same callback. A cancel that arrives before
///    submission prevents the submission instead.
/// 4. The C memory is freed in `deinit`. While submitted, the transfer retains itself through
///    `user_data`; a cancellation handler that is running retains it too. So the memory outlives
///    both the callback and any `libusb_cancel_transfer` call.
/// 5. A read begun ahead of its caller (a bulk-IN read submitted along with the command it
///    answers) is submitted with ``start(finishing:)`` and awaited later with ``wait()``; when
///    it ends before anyone waits, its outcome is kept for the waiter.
///
/// `libusb_cancel_transfer` is called with `state` locked. libusb 1.0.26 reads the transfer's
/// device handle in it, and the owner may close that handle as soon as the transfer has
/// finished; holding the lock keeps the transfer from finishing during the call. This cannot
/// deadlock: libusb runs completion callbacks without the transfer's own lock, which is the only
/// lock `libusb_cancel_transfer` takes besides the backend's.
final class LibUSBTransfer: Sendable {
    private enum Phase {
        /// Filled, not yet submitted.
        case created
        /// `libusb_submit_transfer` is running.
        case submitting
        /// libusb owns it; the callback will run.
        case inFlight
        /// The callback ran, or submission failed or was skipped.
        case finished
    }

    private struct State {
        var phase = Phase.created
        var cancelRequested = false
        var continuation: CheckedContinuation<LibUSBTransferOutcome, Never>?
        var finishing: (@Sendable (LibUSBTransferOutcome) -> Void)?
        /// How a transfer begun with start(finishing:) ended, until wait() takes it.
        var outcome: LibUSBTransferOutcome?
    }

    // The libusb_transfer and its buffer are C memory owned by this object and freed in deinit;
    // before submission only the creating task touches them, afterwards only libusb and the
    // callback (ordering through `state`).
    nonisolated(unsafe) private let transfer: UnsafeMutablePointer<libusb_transfer>
    nonisolated(unsafe) private let buffer: UnsafeMutableRawBufferPointer
    /// Offset of the data in the buffer: 8 for control transfers (the SETUP packet comes first).
    private let dataOffset: Int
    private let state = Mutex(State())

    private init(length: Int, dataOffset: Int) throws(USBTransportError) {
        // libusb takes an int length; refuse before allocating rather than trap converting.
        guard length >= 0, length <= Self.maximumLength else {
            throw .io("a USB transfer of \(length) bytes exceeds the limit of \(Self.maximumLength)")
        }
        guard let transfer = libusb_alloc_transfer(0) else { throw .io("libusb_alloc_transfer failed (out of memory)") }
        self.transfer = transfer
        // libusb rejects a NULL buffer even for zero-length transfers; keep at least one byte.
        buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: max(length, 1), alignment: 8)
        buffer.initializeMemory(as: UInt8.self, repeating: 0)
        self.dataOffset = dataOffset
    }

    /// The largest transfer this type makes: far above any CCID message (see
    /// `CCIDClassDescriptor.maximumUsableMessageLength`) and far below libusb's `int` length.
    static let maximumLength = 1 << 20

    deinit {
        libusb_free_transfer(transfer)
        buffer.deallocate()
    }

    /// A bulk transfer; OUT transfers send `data`, IN transfers receive up to `length` bytes.
    static func bulk(
        handle: OpaquePointer, endpoint: UInt8, data: [UInt8] = [], length: Int,
        timeoutMilliseconds: UInt32
    ) throws(USBTransportError) -> LibUSBTransfer {
        let transfer = try LibUSBTransfer(length: length, dataOffset: 0)
        transfer.copyIn(data, at: 0)
        libusb_fill_bulk_transfer(
            transfer.transfer, handle, endpoint, transfer.bytes, Int32(truncatingIfNeeded: length),
            libUSBTransferCompleted, nil, timeoutMilliseconds)
        return transfer
    }

    /// An interrupt-IN transfer of up to `length` bytes.
    static func interrupt(
        handle: OpaquePointer, endpoint: UInt8, length: Int,
        timeoutMilliseconds: UInt32
    ) throws(USBTransportError) -> LibUSBTransfer {
        let transfer = try LibUSBTransfer(length: length, dataOffset: 0)
        libusb_fill_interrupt_transfer(
            transfer.transfer, handle, endpoint, transfer.bytes, Int32(truncatingIfNeeded: length),
            libUSBTransferCompleted, nil, timeoutMilliseconds)
        return transfer
    }

    /// A control transfer on the default pipe: SETUP packet, then `request.data` (host-to-device)
    /// or room for `request.length` bytes (device-to-host).
    static func control(
        handle: OpaquePointer, request: USBControlRequest,
        timeoutMilliseconds: UInt32
    ) throws(USBTransportError) -> LibUSBTransfer {
        // LIBUSB_CONTROL_SETUP_SIZE, a macro Swift cannot import.
        let setupLength = MemoryLayout<libusb_control_setup>.size
        let dataLength = request.isDeviceToHost ? Int(request.length) : request.data.count
        let transfer = try LibUSBTransfer(length: setupLength + dataLength, dataOffset: setupLength)
        libusb_fill_control_setup(
            transfer.bytes, request.requestType, request.request, request.value, request.index,
            UInt16(dataLength))
        if !request.isDeviceToHost { transfer.copyIn(request.data, at: setupLength) }
        libusb_fill_control_transfer(
            transfer.transfer, handle, transfer.bytes, libUSBTransferCompleted, nil,
            timeoutMilliseconds)
        return transfer
    }

    private var bytes: UnsafeMutablePointer<UInt8> {
        buffer.baseAddress!.assumingMemoryBound(to: UInt8.self)
    }

    private func copyIn(_ data: [UInt8], at offset: Int) {
        guard !data.isEmpty else { return }
        data.withUnsafeBytes { source in
            UnsafeMutableRawBufferPointer(rebasing: buffer[offset..<offset + source.count]).copyMemory(from: source)
        }
    }

    /// Submits the transfer and waits for it to end. Cancelling the calling task cancels the
    /// transfer. `finishing` runs exactly once, on the thread that ends the transfer (normally
    /// the libusb event thread), before the task resumes; it must not block on Swift tasks.
    nonisolated(nonsending) func run(finishing: @escaping @Sendable (LibUSBTransferOutcome) -> Void) async
        -> LibUSBTransferOutcome
    {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<LibUSBTransferOutcome, Never>) in
                submit(resuming: continuation, finishing: finishing)
            }
        } onCancel: {
            cancel()
        }
    }

    /// Submits the transfer without waiting for it: ``wait()`` takes its outcome later.
    /// `finishing` runs as in ``run(finishing:)``.
    func start(finishing: @escaping @Sendable (LibUSBTransferOutcome) -> Void) {
        submit(resuming: nil, finishing: finishing)
    }

    /// Waits for a transfer begun with ``start(finishing:)`` to end (at once when it has).
    /// Cancelling the calling task cancels the transfer. Call it once.
    nonisolated(nonsending) func wait() async -> LibUSBTransferOutcome {
        if let outcome = takeOutcome() { return outcome }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<LibUSBTransferOutcome, Never>) in
                let outcome = state.withLock { state -> LibUSBTransferOutcome? in
                    guard let outcome = state.outcome else {
                        state.continuation = continuation
                        return nil
                    }
                    state.outcome = nil
                    return outcome
                }
                if let outcome { continuation.resume(returning: outcome) }
            }
        } onCancel: {
            cancel()
        }
    }

    /// True once the transfer has ended (its outcome is known).
    var isFinished: Bool { state.withLock { $0.phase == .finished } }

    private func takeOutcome() -> LibUSBTransferOutcome? {
        state.withLock { state in
            defer { state.outcome = nil }
            return state.outcome
        }
    }

    /// Asks libusb to cancel the transfer (or prevents its submission). The transfer then ends
    /// through the usual path with `LIBUSB_TRANSFER_CANCELLED`, unless it completed first.
    func cancel() {
        state.withLock { state in
            state.cancelRequested = true
            // Under the lock the callback cannot finish the transfer meanwhile (see the type's
            // documentation); if libusb has completed it already, it answers NOT_FOUND.
            if state.phase == .inFlight { _ = libusb_cancel_transfer(transfer) }
        }
    }

    /// `continuation` nil: nobody waits yet (``start(finishing:)``); the outcome is kept.
    private func submit(
        resuming continuation: CheckedContinuation<LibUSBTransferOutcome, Never>?,
        finishing: @escaping @Sendable (LibUSBTransferOutcome) -> Void
    ) {
        let proceed = state.withLock { state -> Bool in
            if state.cancelRequested {
                state.phase = .finished
                return false
            }
            state.phase = .submitting
            state.continuation = continuation
            state.finishing = finishing
            return true
        }
        guard proceed else {
            finishing(.cancelledBeforeSubmission)
            guard let continuation else {
                state.withLock { $0.outcome = .cancelledBeforeSubmission }
                return
            }
            continuation.resume(returning: .cancelledBeforeSubmission)
            return
        }
        // The callback takes this retain back; it keeps the memory alive while libusb owns it.
        let retained = Unmanaged.passRetained(self)
        transfer.pointee.user_data = retained.toOpaque()
        let result = libusb_submit_transfer(transfer)
        if result != 0 {
            retained.release()
            finish(with: .submissionFailed(code: result))
            return
        }
        state.withLock { state in
            // The callback may already have run on the event thread; then the phase stays finished.
            if state.phase == .submitting { state.phase = .inFlight }
            // A cancel that arrived during submission found no transfer in flight; repeat it now.
            if state.cancelRequested && state.phase == .inFlight { _ = libusb_cancel_transfer(transfer) }
        }
    }

    /// Called by libusb (through `libUSBTransferCompleted`) when the transfer has ended.
    fileprivate func completed() {
        let status = transfer.pointee.status
        let actualLength = Int(max(transfer.pointee.actual_length, 0))
        var data: [UInt8] = []
        if transfer.pointee.endpoint & 0x80 != 0 || isDeviceToHostControl {
            let available = min(actualLength, buffer.count - dataOffset)
            data = Array(UnsafeRawBufferPointer(rebasing: buffer[dataOffset..<dataOffset + available]))
        }
        finish(with: .completed(status: status, actualLength: actualLength, data: data))
    }

    private var isDeviceToHostControl: Bool {
        transfer.pointee.type == UInt8(LIBUSB_TRANSFER_TYPE_CONTROL.rawValue) && bytes[0] & 0x80 != 0
    }

    private func finish(with outcome: LibUSBTransferOutcome) {
        // Finished before the hook runs (the hook may let the owner close the device handle,
        // and cancel() must not touch the transfer then); the outcome is seen only after the
        // hook, so its bookkeeping (a cleared halt, a gone device) comes first.
        let finishing = state.withLock { state in
            state.phase = .finished
            defer { state.finishing = nil }
            return state.finishing
        }
        finishing?(outcome)
        let continuation = state.withLock { state in
            defer { state.continuation = nil }
            if state.continuation == nil { state.outcome = outcome }
            return state.continuation
        }
        continuation?.resume(returning: outcome)
    }
}

/// The completion callback of every transfer: hands the transfer back to its Swift object.
private func libUSBTransferCompleted(_ transfer: UnsafeMutablePointer<libusb_transfer>?) {
    guard let userData = transfer?.pointee.user_data else { return }
    Unmanaged<LibUSBTransfer>.fromOpaque(userData).takeRetainedValue().completed()
}
