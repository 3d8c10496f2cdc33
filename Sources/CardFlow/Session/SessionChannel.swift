import Logging

/// A session's exchange with its card: CCID, traced at `trace` (secrets redacted) and measured
/// (swift-metrics), in that order: the layers of
/// `MetricsCardChannel(wrapping: TracingCardChannel(wrapping: CCIDCardChannel(...)))`, with the
/// same trace records and metrics.
///
/// Unlike that chain of `any CardChannel`s, whose nonisolated `transmit`s each leave the calling
/// actor for the generic executor and each take an async frame, it runs on the caller's
/// executor from the session to the driver: with ``CardSession`` on the driver's executor, an
/// APDU costs no actor hop between them. A class, so that a session hands it to an exchange
/// with one retain instead of copying every layer's fields.
final class SessionChannel: Sendable {
    private let ccid: CCIDCardChannel
    private let tracing: TracingCardChannel
    private let metrics: MetricsCardChannel

    init(reader: Reader, redaction: APDURedaction) {
        ccid = CCIDCardChannel(driver: reader.driver, slot: reader.slot)
        tracing = TracingCardChannel(wrapping: ccid, logger: reader.logger, redaction: redaction)
        metrics = MetricsCardChannel(wrapping: tracing, readerName: reader.info.name, factory: reader.metricsFactory)
    }

    /// One exchange. With tracing off and metrics going nowhere (swift-metrics' no-op factory)
    /// the layers have nothing to do but note the untraced exchange; otherwise their steps are
    /// synchronous calls around the driver's `transmit`.
    @inline(__always)
    func transmit(_ command: CommandAPDU, isolation: isolated (any Actor)? = #isolation) async throws -> ResponseAPDU {
        guard metrics.records || tracing.isTracing else {
            tracing.recordUntraced()
            return try await ccid.exchange(command)
        }
        return try await observedTransmit(command)
    }

    private func observedTransmit(_ command: CommandAPDU, isolation: isolated (any Actor)? = #isolation) async throws -> ResponseAPDU {
        let sent = metrics.recordSending(command)
        let response: ResponseAPDU
        do {
            if tracing.isTracing {
                response = try await tracing.traced(command) { command in try await ccid.exchange(command) }
            } else {
                tracing.recordUntraced()
                response = try await ccid.exchange(command)
            }
        } catch {
            metrics.recordFailure(error)
            throw error
        }
        metrics.recordAnswer(response, sentAt: sent)
        return response
    }
}
