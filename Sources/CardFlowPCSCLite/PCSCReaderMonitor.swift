import CCardFlowPCSCLite
import Logging

/// Card presence in one PC/SC reader, as an async stream.
///
/// Each ``presence()`` stream has its own `SCARDCONTEXT` on its own thread, blocked in
/// `SCardGetStatusChange` between changes; transmits on other contexts are never held up by it.
/// Stopping the iteration (or cancelling the consuming task) ends the wait with `SCardCancel`.
///
/// ```swift
/// let monitor = PCSCReaderMonitor(reader: name, logger: logger)
/// for try await presence in monitor.presence() {
///     switch presence {
///     case .present(let atr): print("card, ATR \(atr)")
///     case .absent: print("no card")
///     }
/// }
/// // The loop throws PCSCError (SCARD_E_READER_UNAVAILABLE, SCARD_E_NO_SERVICE, …) when the
/// // reader or pcscd goes away.
/// ```
public struct PCSCReaderMonitor: Sendable {
    /// The reader's PC/SC name.
    public let reader: String
    private let logger: Logger

    public init(reader: String, logger: Logger = Logger(label: "cardflow.pcsc")) {
        self.reader = reader
        self.logger = logger
    }

    /// The current presence first, then every change (repeats are folded: a new ATR counts as a
    /// change, a card merely put in use by another client does not). The stream finishes when
    /// the consumer stops; it throws ``PCSCError`` when the reader is unknown or goes away
    /// (`SCARD_E_UNKNOWN_READER`, `SCARD_E_READER_UNAVAILABLE`) or pcscd stops (`SCARD_E_NO_SERVICE`).
    public func presence() -> AsyncThrowingStream<PCSCCardPresence, any Error> {
        watch().updates
    }

    /// ``presence()`` as a ``PCSCWatch``, which can be stopped and awaited (before a program
    /// exits, say).
    public func watch() -> PCSCWatch<PCSCCardPresence> {
        let (stream, continuation) = AsyncThrowingStream.makeStream(of: PCSCCardPresence.self)
        let reader = reader
        let logger = logger
        let task = Task {
            var opened: PCSCStatusWatcher?
            do {
                let watcher = try await PCSCStatusWatcher(label: "pcsc-presence", logger: logger)
                opened = watcher
                var known = UInt(SCARD_STATE_UNAWARE)
                var last: PCSCCardPresence?
                var seen = false
                while true {
                    guard let status = try await watcher.waitForChange(reader: reader, knownState: known) else {
                        continue
                    }
                    known = status.eventState
                    let presence = try PCSCCardPresence(status, readerWasSeen: seen)
                    seen = true
                    if presence != last {
                        logger.debug("PC/SC presence", metadata: ["reader": "\(reader)", "presence": "\(presence)"])
                        continuation.yield(presence)
                        last = presence
                    }
                }
            } catch is CancellationError {
                continuation.finish()
            } catch {
                logger.debug("PC/SC presence ends", metadata: ["reader": "\(reader)", "error": "\(error)"])
                continuation.finish(throwing: error)
            }
            await opened?.close()
        }
        continuation.onTermination = { _ in task.cancel() }
        return PCSCWatch(updates: stream, task: task)
    }
}
