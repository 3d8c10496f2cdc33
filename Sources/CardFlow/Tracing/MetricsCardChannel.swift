import Metrics

/// A ``CardChannel`` that records swift-metrics for every exchange with another channel.
///
/// | Label | Kind | Dimensions | What |
/// |---|---|---|---|
/// | `cardflow_apdus_sent` | counter | `reader` | commands handed to the channel |
/// | `cardflow_apdu_bytes_sent` | counter | `reader` | encoded command bytes |
/// | `cardflow_apdu_bytes_received` | counter | `reader` | response bytes, SW1 SW2 included |
/// | `cardflow_apdu_status_errors` | counter | `reader`, `sw` (e.g. `"6A82"`; `"6Fxx"` or `"other"` for status words ISO 7816-4 does not name, so a card cannot create unbounded series) | answers whose status word counts as an error |
/// | `cardflow_apdu_transport_errors` | counter | `reader`, `error` (the error's type name) | exchanges that threw |
/// | `cardflow_apdu_duration` | timer | `reader` | time from sending a command to its answer |
///
/// By default every status word but `9000`, `61xx` (more data) and `6Cxx` (wrong Le, retry) is an
/// error, warnings (`62xx`, `63xx`) included; pass `isStatusError` to change that, e.g. for
/// DESFire's `91xx` answers. Task cancellation is not a transport error and is not counted.
///
/// ```swift
/// let channel = MetricsCardChannel(wrapping: CCIDCardChannel(driver: driver),
///                                  readerName: "ACS ACR122U")
/// _ = try await channel.transmit(command)   // counts and times the exchange
/// ```
public struct MetricsCardChannel: CardChannel {
    /// The metric labels this channel records.
    public enum Label {
        public static let apdusSent = "cardflow_apdus_sent"
        public static let bytesSent = "cardflow_apdu_bytes_sent"
        public static let bytesReceived = "cardflow_apdu_bytes_received"
        public static let statusErrors = "cardflow_apdu_status_errors"
        public static let transportErrors = "cardflow_apdu_transport_errors"
        public static let duration = "cardflow_apdu_duration"
    }

    /// The channel the exchanges go to.
    public let base: any CardChannel
    /// The value of the `reader` dimension on every metric.
    public let readerName: String
    private let factory: any MetricsFactory
    private let isStatusError: @Sendable (StatusWord) -> Bool
    private let apdusSent: Counter
    private let bytesSent: Counter
    private let bytesReceived: Counter
    private let duration: Timer
    /// False for swift-metrics' no-op factory (the default until `MetricsSystem.bootstrap`):
    /// then nothing is counted, timed or read from the clock.
    let records: Bool

    /// Whether `statusWord` is neither `9000`, nor `61xx`, nor `6Cxx`: the default error rule.
    public static func isErrorByDefault(_ statusWord: StatusWord) -> Bool {
        !(statusWord.isSuccess || statusWord.sw1 == 0x61 || statusWord.sw1 == 0x6C)
    }

    /// - Parameters:
    ///   - base: the channel to measure.
    ///   - readerName: the `reader` dimension, e.g. the reader's product name.
    ///   - factory: where the metrics go; the bootstrapped `MetricsSystem.factory` by default.
    ///   - isStatusError: which status words count in `cardflow_apdu_status_errors`.
    public init(
        wrapping base: any CardChannel,
        readerName: String,
        factory: any MetricsFactory = MetricsSystem.factory,
        isStatusError: @escaping @Sendable (StatusWord) -> Bool = MetricsCardChannel.isErrorByDefault
    ) {
        self.base = base
        self.readerName = readerName
        self.factory = factory
        self.isStatusError = isStatusError
        let dimensions = [("reader", readerName)]
        apdusSent = Counter(label: Label.apdusSent, dimensions: dimensions, factory: factory)
        bytesSent = Counter(label: Label.bytesSent, dimensions: dimensions, factory: factory)
        bytesReceived = Counter(label: Label.bytesReceived, dimensions: dimensions, factory: factory)
        duration = Timer(label: Label.duration, dimensions: dimensions, factory: factory)
        records = !(factory is NOOPMetricsHandler)
    }

    public func transmit(_ command: CommandAPDU) async throws -> ResponseAPDU {
        let sent = recordSending(command)
        let response: ResponseAPDU
        do {
            response = try await base.transmit(command)
        } catch {
            recordFailure(error)
            throw error
        }
        recordAnswer(response, sentAt: sent)
        return response
    }

    // The steps of `transmit`, for ``SessionChannel``, which runs them around its own exchange.

    /// Counts `command` going out and returns when it went (nil when the metrics go nowhere).
    @inline(__always)
    func recordSending(_ command: CommandAPDU) -> ContinuousClock.Instant? {
        guard records else { return nil }
        apdusSent.increment()
        bytesSent.increment(by: command.encodedCount)
        return ContinuousClock.now
    }

    /// Counts a failed exchange (not a cancellation).
    func recordFailure(_ error: any Error) {
        guard records, !(error is CancellationError) else { return }
        Counter(
            label: Label.transportErrors,
            dimensions: [("reader", readerName), ("error", String(describing: type(of: error)))],
            factory: factory
        ).increment()
    }

    /// Times and counts the answer to a command sent at `sent`.
    @inline(__always)
    func recordAnswer(_ response: ResponseAPDU, sentAt sent: ContinuousClock.Instant?) {
        guard let sent else { return }
        duration.record(duration: sent.duration(to: .now))
        bytesReceived.increment(by: response.data.count + 2)
        if isStatusError(response.statusWord) {
            Counter(
                label: Label.statusErrors,
                dimensions: [("reader", readerName), ("sw", StatusWordMetricLabel.label(for: response.statusWord))],
                factory: factory
            ).increment()
        }
    }
}

extension CommandAPDU {
    /// How many bytes ``encoded(forceExtendedLength:)`` gives, without building them.
    fileprivate var encodedCount: Int {
        let extended = isoCase().isExtended
        let lcField = data.isEmpty ? 0 : (extended ? 3 : 1)
        let leField = le == nil ? 0 : (extended ? (data.isEmpty ? 3 : 2) : 1)
        return 4 + lcField + data.count + leField
    }
}
