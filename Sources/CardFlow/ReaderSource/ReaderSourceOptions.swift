import Logging

/// How a ``ReaderSource`` opens readers: the callers differ (cardctl traces APDUs and sets a read
/// timeout; the daemon watches readers come and go and numbers every source's readers in one
/// sequence).
///
/// ```swift
/// var options = ReaderSourceOptions(logger: logger)
/// options.firstIndex = 2   // ids sim:2, sim:3, …
/// options.readTimeout = .seconds(10)
/// ```
public struct ReaderSourceOptions: Sendable {
    /// The readers' drivers log here.
    public var logger: Logger
    /// The readers log here (APDU trace at `trace`); ``logger`` when nil.
    public var apduLogger: Logger?
    /// The number of the first reader's id (`sim:N`); the next ones count on from it.
    public var firstIndex: Int
    /// Keep watching: readers that arrive later (USB hotplug, pcscd's plug-and-play) come
    /// through ``OpenedReaders/arrivals``, and only they (a daemon). When false the source opens
    /// the readers there now (a command-line tool).
    public var watch: Bool
    /// How long a driver waits for a reader's answer, when the caller sets it (the backend's own
    /// default otherwise).
    public var readTimeout: Duration?
    /// The card protocol to insist on at power-on; nil lets the backend choose (T=1 when both
    /// sides offer it).
    public var transmissionProtocol: CardProtocol?
    /// Settings only one backend understands, keyed by their type (the CCID driver's
    /// configuration, for instance); a source ignores what it does not know.
    public var backendSettings: ReaderBackendSettings

    /// - Parameters:
    ///   - logger: the drivers' logger.
    ///   - apduLogger: the readers' logger; `logger` when nil.
    ///   - firstIndex: the number of the first reader's id.
    ///   - watch: whether readers that come and go are watched.
    public init(logger: Logger, apduLogger: Logger? = nil, firstIndex: Int = 0, watch: Bool = false) {
        self.logger = logger
        self.apduLogger = apduLogger
        self.firstIndex = firstIndex
        self.watch = watch
        self.readTimeout = nil
        self.transmissionProtocol = nil
        self.backendSettings = ReaderBackendSettings()
    }

    /// The logger the readers (not their drivers) write to.
    public var readerLogger: Logger { apduLogger ?? logger }
}

/// Settings for one backend, keyed by their type, so the options every source shares name no
/// backend.
///
/// ```swift
/// var driver = CCIDDriverConfiguration()
/// driver.powerOnTimeout = .seconds(2)
/// options.backendSettings[CCIDDriverConfiguration.self] = driver
/// ```
public struct ReaderBackendSettings: Sendable {
    private var values: [ObjectIdentifier: any Sendable] = [:]

    /// No settings: every backend uses its defaults.
    public init() {}

    /// The setting of this type, nil when none was given.
    public subscript<Setting: Sendable>(_ type: Setting.Type) -> Setting? {
        get { values[ObjectIdentifier(type)] as? Setting }
        set { values[ObjectIdentifier(type)] = newValue }
    }
}
