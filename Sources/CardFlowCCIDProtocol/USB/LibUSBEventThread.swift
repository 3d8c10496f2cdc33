import CCardFlowLibUSB
import Dispatch
import Foundation
import Logging
import Synchronization

/// The one thread that runs libusb's event loop for a ``LibUSBContext``.
///
/// libusb delivers transfer completions and hotplug notifications only from inside
/// `libusb_handle_events*`. A dedicated OS thread (not a Swift concurrency thread, which must
/// never block) sits in `libusb_handle_events_timeout_completed`, which sleeps in poll() until
/// an event, a transfer timeout or `libusb_interrupt_event_handler` wakes it.
final class LibUSBEventThread: Sendable {
    // libusb_context*: libusb's event API is thread-safe, and the pointer is fixed for our lifetime.
    nonisolated(unsafe) private let context: OpaquePointer
    private let logger: Logger
    private let stopRequested = Atomic<Bool>(false)
    private let started = Atomic<Bool>(false)
    /// Signalled by the thread when its loop has ended; `stop()` waits on it (a join).
    private let finished = DispatchSemaphore(value: 0)
    /// Signalled by `stop()`, so the pause after an event-loop error ends as soon as stopping is asked.
    private let stopSignal = DispatchSemaphore(value: 0)
    private let thread = Mutex<Thread?>(nil)

    /// How long one `libusb_handle_events_timeout_completed` call may sleep. Wake-ups come from
    /// events and from `stop()`; this bound is only a safety net, so it can be long.
    private static let sleepSeconds = 30
    /// Pause after an unexpected event-loop error, so a persistent one cannot become a busy loop.
    private static let errorPause = DispatchTimeInterval.milliseconds(100)

    init(context: OpaquePointer, logger: Logger) {
        self.context = context
        self.logger = logger
    }

    /// Starts the thread (once).
    func start() {
        guard !started.exchange(true, ordering: .acquiringAndReleasing) else { return }
        thread.withLock { slot in
            let thread = Thread { [self] in self.run() }
            thread.name = "libusb events"
            thread.start()
            slot = thread
        }
    }

    /// True when called on the event thread itself (where stopping must not wait for itself).
    var isCurrentThread: Bool {
        thread.withLock { $0 === Thread.current }
    }

    /// Asks the loop to end, wakes it, and waits until it has (a join). Idempotent.
    func stop() {
        guard started.load(ordering: .acquiring) else { return }
        guard !stopRequested.exchange(true, ordering: .acquiringAndReleasing) else { return }
        // The interrupt flag stays set until a handle_events call consumes it, so a thread that is
        // between two calls still returns at once.
        libusb_interrupt_event_handler(context)
        stopSignal.signal()
        if isCurrentThread {
            logger.error("libusb event thread asked to stop itself; not waiting for it")
            return
        }
        finished.wait()
    }

    private func run() {
        logger.debug("libusb event thread started")
        while !stopRequested.load(ordering: .acquiring) {
            var timeout = timeval(tv_sec: Self.sleepSeconds, tv_usec: 0)
            let result = libusb_handle_events_timeout_completed(context, &timeout, nil)
            if result < 0 && result != LIBUSB_ERROR_INTERRUPTED.rawValue {
                logger.error("libusb event handling failed", metadata: ["error": "\(LibUSBErrorMapping.name(result))"])
                // Pause (a dedicated OS thread, not async code) so a broken context cannot spin;
                // a stop request ends the pause at once.
                _ = stopSignal.wait(timeout: .now() + Self.errorPause)
            }
        }
        logger.debug("libusb event thread stopped")
        finished.signal()
    }
}
