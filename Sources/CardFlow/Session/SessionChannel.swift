import Logging
import Synchronization

/// A session's exchange with its card: the reader's backend, traced at `trace` (secrets
/// redacted) and measured (swift-metrics), in that order: the layers of
/// `MetricsCardChannel(wrapping: TracingCardChannel(wrapping: ReaderDriverChannel(...)))`, with
/// the same trace records and metrics. It also holds the session's closed flag, so that
/// ``CardSession/transmit(_:)`` needs no actor state.
///
/// Unlike that chain of `any CardChannel`s, whose `transmit`s each take an async frame and an
/// executor check, it runs in its caller's frame straight to the driver. With tracing off and
/// metrics going nowhere an APDU costs the closed flag's load, two checks and noting the
/// untraced exchange for GET RESPONSE redaction, besides the driver's own work.
final class SessionChannel: Sendable {
    private let backend: ReaderDriverChannel
    private let logger: Logger
    /// The logger's handler, read once: asking it for the level directly skips the logger's
    /// copy-on-write box and its exclusivity check, the larger part of a traceless APDU's
    /// session cost. Same answers: `Logger` is a value, so the reader's copy never changes its
    /// handler, and a handler whose level lives in shared state still reports changes.
    private let logHandler: any LogHandler
    /// Made when the first APDU is traced, replaced when the session adds a redaction rule:
    /// a session that traces nothing makes none.
    private let tracing: Mutex<TracingChannelBox?>
    /// Shared by every tracing channel the session makes, so GET RESPONSE redaction carries on.
    private let getResponseRedaction = GetResponseRedaction()
    private let metrics: MetricsCardChannel
    private let closed = Atomic<Bool>(false)

    init(reader: Reader) {
        backend = ReaderDriverChannel(driver: reader.driver)
        logger = reader.logger
        logHandler = reader.logger.handler
        tracing = Mutex(nil)
        metrics = reader.apduMetrics
    }

    /// Whether the session is closed.
    var isClosed: Bool { closed.load(ordering: .acquiring) }

    /// Marks the session closed; returns whether it already was.
    func close() -> Bool {
        closed.exchange(true, ordering: .acquiringAndReleasing)
    }

    /// Traces with `redaction` from now on.
    func setRedaction(_ redaction: APDURedaction) {
        let channel = tracingChannel(redaction: redaction)
        tracing.withLock { $0 = channel }
    }

    private func tracingChannel(redaction: APDURedaction) -> TracingChannelBox {
        TracingChannelBox(
            TracingCardChannel(
                wrapping: backend, logger: logger, redaction: redaction, getResponseRedaction: getResponseRedaction))
    }

    /// The tracing channel, made (with no redaction) if none was needed before.
    private func currentTracing() -> TracingChannelBox {
        tracing.withLock { channel in
            if let channel { return channel }
            let made = tracingChannel(redaction: .none)
            channel = made
            return made
        }
    }

    /// Whether an exchange now needs neither tracing nor metrics; if so, notes it as untraced
    /// for GET RESPONSE redaction (the caller then sends it straight to the driver).
    @inline(__always)
    func recordUntracedIfUnobserved() -> Bool {
        guard !metrics.records, logHandler.logLevel > .trace else { return false }
        getResponseRedaction.recordUntraced()
        return true
    }

    /// One exchange. With tracing off and metrics going nowhere (swift-metrics' no-op factory)
    /// the layers have nothing to do but note the untraced exchange; otherwise their steps are
    /// synchronous calls around the driver's `transmit`.
    @inline(__always)
    func transmit(_ command: CommandAPDU) async throws -> ResponseAPDU {
        guard !recordUntracedIfUnobserved() else { return try await backend.exchange(command) }
        return try await observedTransmit(command, within: nil)
    }

    /// ``transmit(_:)`` within `limit`: the backend stops the exchange when it passes and
    /// throws ``ReaderExchangeTimedOut``.
    @inline(__always)
    func transmit(_ command: CommandAPDU, within limit: ExchangeTimeLimit) async throws -> ResponseAPDU {
        guard !recordUntracedIfUnobserved() else {
            return try await backend.exchange(command, encoded: command.encoded(), within: limit)
        }
        return try await observedTransmit(command, within: limit)
    }

    private func observedTransmit(_ command: CommandAPDU, within limit: ExchangeTimeLimit?) async throws
        -> ResponseAPDU
    {
        let sent = metrics.recordSending(command)
        let response: ResponseAPDU
        do {
            if logHandler.logLevel <= .trace {
                let tracing = currentTracing()
                response = try await tracing.channel.traced(command) { command, encoded in
                    try await backend.exchange(command, encoded: consume encoded, within: limit)
                }
            } else {
                getResponseRedaction.recordUntraced()
                response = try await backend.exchange(command, encoded: command.encoded(), within: limit)
            }
        } catch {
            metrics.recordFailure(error)
            throw error
        }
        metrics.recordAnswer(response, sentAt: sent)
        return response
    }
}

/// A session's tracing channel behind one reference: a traced APDU takes it out of the lock with
/// one retain, where the channel itself (a backend, a logger, its redaction and state) would be
/// copied field by field, and released so, for every APDU.
private final class TracingChannelBox: Sendable {
    let channel: TracingCardChannel

    init(_ channel: TracingCardChannel) {
        self.channel = channel
    }
}
