import CCID
import Logging

/// How a ``ReaderSource`` opens readers: the callers differ (cardctl traces APDUs and sets the
/// CCID timeouts; the daemon numbers every source's readers in one sequence).
///
/// ```swift
/// var options = ReaderSourceOptions(logger: logger)
/// options.firstIndex = 2   // ids sim:2, sim:3, …
/// ```
public struct ReaderSourceOptions: Sendable {
    /// The readers' drivers log here.
    public var logger: Logger
    /// The readers log here (APDU trace at `trace`); ``logger`` when nil.
    public var apduLogger: Logger?
    /// Timeouts, bounds and quirks for sources whose readers run the CCID driver (the simulator's).
    public var driverConfiguration: CCIDDriverConfiguration
    /// The number of the first reader's id (`sim:N`); the next ones count on from it.
    public var firstIndex: Int

    /// - Parameters:
    ///   - logger: the drivers' logger.
    ///   - apduLogger: the readers' logger; `logger` when nil.
    ///   - driverConfiguration: the CCID driver's settings.
    ///   - firstIndex: the number of the first reader's id.
    public init(
        logger: Logger, apduLogger: Logger? = nil,
        driverConfiguration: CCIDDriverConfiguration = CCIDDriverConfiguration(), firstIndex: Int = 0
    ) {
        self.logger = logger
        self.apduLogger = apduLogger
        self.driverConfiguration = driverConfiguration
        self.firstIndex = firstIndex
    }
}
