import CCardFlowLibFTDI
import Dispatch
import Foundation
import Logging
import Synchronization

/// The thread that owns one libftdi context for ``UFRFTDILink``.
///
/// libftdi's calls block (synchronous USB transfers), so they run on a dedicated OS thread,
/// never on Swift's cooperative pool; async callers hand it writes and a close through a
/// small locked queue and a semaphore. The context pointer never leaves the thread.
final class UFRFTDIWorker: Sendable {
    private struct Write: Sendable {
        let bytes: [UInt8]
        let done: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var writes: [Write] = []
        var closing = false
        var stopped = false
        var closeWaiters: [CheckedContinuation<Void, Never>] = []
    }

    let endpoint: String
    private let options: UFRFTDIOptions
    private let events: AsyncStream<UFRLinkEvent>.Continuation
    private let logger: Logger
    private let state = Mutex(State())
    /// Signalled for each write and for close, so an idle thread sleeps until there is work.
    private let wake = DispatchSemaphore(value: 0)

    /// Bytes the uFR bootloader sends after a reset (ufr.md §1.1).
    private static let bootloaderBytes: [UInt8] = [0x03, 0x55, 0x55, 0xBB]

    init(endpoint: String, options: UFRFTDIOptions, events: AsyncStream<UFRLinkEvent>.Continuation, logger: Logger) {
        self.endpoint = endpoint
        self.options = options
        self.events = events
        self.logger = logger
    }

    /// Starts the thread; `opened` resumes once the device is set up, or with the failure.
    func start(opened: CheckedContinuation<Void, any Error>) {
        let thread = Thread { [self] in self.run(opened: opened) }
        thread.name = "uFR FTDI \(endpoint)"
        thread.start()
    }

    /// Queues bytes for the chip; returns once they were written.
    func write(_ bytes: [UInt8]) async throws {
        try await withCheckedThrowingContinuation { (done: CheckedContinuation<Void, any Error>) in
            let accepted = state.withLock { state in
                guard !state.closing, !state.stopped else { return false }
                state.writes.append(Write(bytes: bytes, done: done))
                return true
            }
            if accepted {
                wake.signal()
            } else {
                done.resume(throwing: UFRError.linkClosed(endpoint: endpoint, reason: nil))
            }
        }
    }

    /// Asks the thread to close the device and end; returns once it has.
    func close() async {
        await withCheckedContinuation { (closed: CheckedContinuation<Void, Never>) in
            let stopped = state.withLock { state in
                if state.stopped { return true }
                state.closing = true
                state.closeWaiters.append(closed)
                return false
            }
            if stopped { closed.resume() } else { wake.signal() }
        }
    }

    // MARK: the thread

    private func run(opened: CheckedContinuation<Void, any Error>) {
        guard let context = ftdi_new() else {
            stop(failure: "ftdi_new failed")
            opened.resume(throwing: UFRError.connectionFailed(endpoint: endpoint, reason: "ftdi_new failed"))
            return
        }
        do {
            try setUp(context)
        } catch {
            ftdi_free(context)
            stop(failure: "\(error)")
            opened.resume(throwing: error)
            return
        }
        opened.resume()
        let failure = serve(context)
        ftdi_usb_close(context)
        ftdi_free(context)
        stop(failure: failure)
    }

    /// Opens the device and sets up the chip as the vendor's serial example does.
    private func setUp(_ context: UnsafeMutablePointer<ftdi_context>) throws(UFRError) {
        context.pointee.module_detach_mode = AUTO_DETACH_SIO_MODULE
        let opened = ftdi_usb_open_desc(
            context, Int32(UFRFTDIOptions.vendorID), Int32(UFRFTDIOptions.productID), nil, options.serial)
        guard opened >= 0 else { throw failure(context, "opening 0403:6001", opened) }
        do {
            // Bounded transfers: a close or a vanished device is noticed within one of them.
            context.pointee.usb_read_timeout = Int32(options.transferTimeout.wholeMilliseconds)
            context.pointee.usb_write_timeout = 1000
            try step(context, "reset") { ftdi_usb_reset($0) }
            try step(context, "purge") { ftdi_tcioflush($0) }
            try step(context, "baud rate \(options.baudRate)") { ftdi_set_baudrate($0, Int32(options.baudRate)) }
            try step(context, "8N1") { ftdi_set_line_property($0, BITS_8, STOP_BIT_1, NONE) }
            try step(context, "no flow control") { ftdi_setflowctrl($0, SIO_DISABLE_FLOW_CTRL) }
            try step(context, "latency timer") { ftdi_set_latency_timer($0, options.latencyMilliseconds) }
            if let run = runLevel {
                if options.resetOnOpen {
                    try step(context, "RTS reset") { ftdi_setrts($0, run == 0 ? 1 : 0) }
                    // The Arduino library holds the reset 10 ms (ufr.md §1.2): a pause on the
                    // worker's wake semaphore, which a close ends early (serve sees it next).
                    _ = wake.wait(timeout: .now() + .milliseconds(10))
                }
                try step(context, "RTS run level") { ftdi_setrts($0, run) }
                if options.resetOnOpen { try discardBootloaderBytes(context) }
            }
        } catch {
            ftdi_usb_close(context)
            throw error
        }
    }

    /// The `ftdi_setrts` state that lets the reader run; nil leaves RTS alone.
    private var runLevel: Int32? {
        switch options.readerRunsWith {
        case .rtsLow: 0
        case .rtsHigh: 1
        case .untouched: nil
        }
    }

    /// After a reset pulse, reads (and drops) what the bootloader sends, for up to 2 s (the
    /// vendor's wait after a reset, ufr.md §1.1).
    private func discardBootloaderBytes(_ context: UnsafeMutablePointer<ftdi_context>) throws(UFRError) {
        let clock = ContinuousClock()
        let deadline = clock.now + .seconds(2)
        var seen: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 512)
        while clock.now < deadline {
            let count = buffer.withUnsafeMutableBufferPointer {
                ftdi_read_data(context, $0.baseAddress, Int32($0.count))
            }
            guard count >= 0 else { throw failure(context, "reading after the reset", count) }
            seen += buffer.prefix(Int(count))
            if seen.count >= 4, seen.suffix(4).elementsEqual(Self.bootloaderBytes) {
                logger.trace("uFR FTDI: bootloader bytes after the reset discarded")
                return
            }
            // A chip answering an empty read at once must not make this a busy loop; a close
            // ends the pause (serve sees it next).
            if count == 0 { _ = wake.wait(timeout: .now() + .milliseconds(1)) }
        }
        logger.trace("uFR FTDI: no bootloader bytes after the reset", metadata: ["bytes": "\(seen.count)"])
    }

    /// Writes what is queued and reads in the windows after sends; returns why it ended (nil: closed).
    private func serve(_ context: UnsafeMutablePointer<ftdi_context>) -> String? {
        let clock = ContinuousClock()
        var listenUntil: ContinuousClock.Instant?
        // Empty reads since the last bytes of this window (nil: none came yet).
        var emptyReadsAfterData: Int?
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let (writes, closing) = state.withLock { state in
                defer { state.writes.removeAll() }
                return (state.writes, state.closing)
            }
            if closing {
                for write in writes {
                    write.done.resume(throwing: UFRError.linkClosed(endpoint: endpoint, reason: nil))
                }
                return nil
            }
            for (index, write) in writes.enumerated() {
                let written = write.bytes.withUnsafeBufferPointer {
                    ftdi_write_data(context, $0.baseAddress, Int32($0.count))
                }
                guard written == write.bytes.count else {
                    let reason = "ftdi_write_data: \(String(cString: ftdi_get_error_string(context))) (\(written))"
                    for failed in writes[index...] {
                        failed.done.resume(throwing: UFRError.sendFailed(endpoint: endpoint, reason: reason))
                    }
                    return reason
                }
                write.done.resume()
                listenUntil = clock.now + options.listenWindow
                emptyReadsAfterData = nil
            }
            guard let until = listenUntil, clock.now < until else {
                if listenUntil != nil { logger.trace("uFR FTDI: read window closed") }
                listenUntil = nil
                wake.wait()
                continue
            }
            let started = clock.now
            let count = buffer.withUnsafeMutableBufferPointer {
                ftdi_read_data(context, $0.baseAddress, Int32($0.count))
            }
            if count < 0 {
                return "ftdi_read_data: \(String(cString: ftdi_get_error_string(context))) (\(count))"
            }
            if count > 0 {
                events.yield(.bytes(Array(buffer.prefix(Int(count)))))
                listenUntil = clock.now + options.quietPeriod
                emptyReadsAfterData = 0
            } else if let empty = emptyReadsAfterData {
                // The answer has come and the line went quiet: read less and less often (2, 4,
                // 8, 16 ms) until the quiet period ends. Late bytes wait in the chip meanwhile,
                // and every empty read is a USB round trip, the whole cost of an idle reader.
                emptyReadsAfterData = empty + 1
                _ = wake.wait(timeout: .now() + .milliseconds(2 << min(empty, 3)))
            } else if clock.now - started < .milliseconds(1) {
                // A chip answers an empty read after its latency timer; one answering at once
                // must not turn this into a busy loop. A send ends the pause.
                _ = wake.wait(timeout: .now() + .milliseconds(Int(options.latencyMilliseconds)))
            }
        }
    }

    /// Marks the worker stopped, fails queued writes, ends the event stream and releases closers.
    private func stop(failure: String?) {
        let (writes, waiters) = state.withLock { state in
            state.stopped = true
            state.closing = true
            defer {
                state.writes.removeAll()
                state.closeWaiters.removeAll()
            }
            return (state.writes, state.closeWaiters)
        }
        for write in writes { write.done.resume(throwing: UFRError.linkClosed(endpoint: endpoint, reason: failure)) }
        if let failure { logger.trace("uFR FTDI: link ended", metadata: ["reason": "\(failure)"]) }
        events.yield(.closed(failure))
        events.finish()
        for waiter in waiters { waiter.resume() }
    }

    private func step(
        _ context: UnsafeMutablePointer<ftdi_context>, _ name: String,
        _ call: (UnsafeMutablePointer<ftdi_context>) -> Int32
    ) throws(UFRError) {
        let result = call(context)
        guard result >= 0 else { throw failure(context, name, result) }
        logger.trace("uFR FTDI: \(name)")
    }

    private func failure(_ context: UnsafeMutablePointer<ftdi_context>, _ step: String, _ code: Int32) -> UFRError {
        let reason = String(cString: ftdi_get_error_string(context))
        return UFRError.connectionFailed(endpoint: endpoint, reason: "\(step): \(reason) (\(code))")
    }
}

extension Duration {
    /// Whole milliseconds, for C timeouts.
    var wholeMilliseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1000 + attoseconds / 1_000_000_000_000_000
    }
}
