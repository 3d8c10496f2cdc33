import CLibUSB
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
    private let thread = Mutex<Thread?>(nil)

    /// How long one `libusb_handle_events_timeout_completed` call may sleep. Wake-ups come from
    /// events and from `stop()`; this bound is only a safety net, so it can be long.
    private static let sleepSeconds = 30
    /// Pause after an unexpected event-loop error, so a persistent one cannot become a busy loop.
    private static let errorPauseMicroseconds: UInt32 = 100_000

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
                // This is a dedicated OS thread, not async code: pausing it after an error keeps
                // a broken context from spinning.
                usleep(Self.errorPauseMicroseconds)
            }
        }
        logger.debug("libusb event thread stopped")
        finished.signal()
    }
}
