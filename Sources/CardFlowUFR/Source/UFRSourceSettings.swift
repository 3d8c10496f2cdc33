/// Settings only the uFR backend reads, given through
/// ``/CardFlow/ReaderSourceOptions/backendSettings``.
///
/// ```swift
/// var settings = UFRSourceSettings()
/// settings.timing.datagramAttempts = 6
/// options.backendSettings[UFRSourceSettings.self] = settings
/// ```
public struct UFRSourceSettings: Sendable, Hashable {
    /// The link's waits; ``/CardFlow/ReaderSourceOptions/readTimeout`` overrides
    /// ``UFRTiming/replyTimeout``.
    public var timing: UFRTiming
    /// The card timeout each APDU carries (APDU_TRANSCEIVE's Par1, milliseconds).
    public var cardTimeoutMilliseconds: UInt8

    /// - Parameters:
    ///   - timing: the link's waits.
    ///   - cardTimeoutMilliseconds: the per-APDU card timeout (default 250 ms).
    public init(timing: UFRTiming = UFRTiming(), cardTimeoutMilliseconds: UInt8 = 250) {
        self.timing = timing
        self.cardTimeoutMilliseconds = cardTimeoutMilliseconds
    }
}
