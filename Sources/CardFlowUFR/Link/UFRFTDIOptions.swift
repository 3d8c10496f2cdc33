/// How ``UFRFTDILink`` sets up a USB uFR reader's FTDI chip.
///
/// The line follows the vendor's port set-up (ufr.md §1.1): 1 000 000 bps, 8-N-1, no flow
/// control, latency timer 2 ms. The RTS line resets the reader on USB uFR Classic/Advance
/// models; which `ftdi_setrts` value lets it run is not documented (ufr.md §9.1), so it is an
/// option (``ReaderRun``) whose default follows the documents.
///
/// ```swift
/// var options = UFRFTDIOptions(serial: "UN123456")
/// options.readerRunsWith = .rtsHigh      // a reader wired the other way
/// let link = try await UFRFTDILink.open(options: options, logger: logger)
/// ```
public struct UFRFTDIOptions: Sendable, Hashable {
    /// Which RTS level lets the reader run (the other one holds it in reset).
    public enum ReaderRun: String, Sendable, Hashable, CaseIterable {
        /// RTS cleared (`ftdi_setrts(ctx, 0)`) runs the reader, RTS set holds it in reset: the
        /// COM protocol's "set = reset, clear = run" and the API's default
        /// `READER_ACTIVE_ON_RTS_LOW`, read as libftdi's RTS state (inference, not measured).
        case rtsLow = "low"
        /// RTS set (`ftdi_setrts(ctx, 1)`) runs the reader (the API's `READER_ACTIVE_ON_RTS_HIGH`).
        case rtsHigh = "high"
        /// RTS is left as the chip has it (the API's `RTS_DISCONNECTED`; readers without the
        /// reset wiring).
        case untouched = "off"
    }

    /// The FTDI chip's USB vendor id (stock FTDI).
    public static let vendorID: UInt16 = 0x0403
    /// The FT232R's product id, which uFR readers keep (ufr.md §1.1).
    public static let productID: UInt16 = 0x6001

    /// The USB serial string to open (`UN123456`); nil opens the first 0403:6001 device.
    public var serial: String?
    /// The line speed (1 000 000 for USB uFR Classic, Advance and Nano).
    public var baudRate: Int
    /// The chip's latency timer in milliseconds (1–255): how long it holds fewer than a
    /// packet's worth of bytes before sending them.
    public var latencyMilliseconds: UInt8
    /// Which RTS level lets the reader run.
    public var readerRunsWith: ReaderRun
    /// Pulse RTS to the reset level on open, then discard the bootloader's `03 55 55 BB`.
    public var resetOnOpen: Bool
    /// After bytes arrive, how long the link keeps reading once they stop (less and less often;
    /// a uFR sends a reply's packet and EXT back to back). Reading stops between exchanges so
    /// an idle reader costs no USB traffic; bytes arriving later wait in the chip until the
    /// next command is sent.
    public var quietPeriod: Duration
    /// After a send, how long the link reads when nothing arrives at all (longer than any
    /// reply timeout of ``UFRTiming``).
    public var listenWindow: Duration
    /// The bound on one USB read or write (libftdi's `usb_read_timeout`): a cancelled or closed
    /// link stops within it.
    public var transferTimeout: Duration

    /// - Parameters:
    ///   - serial: the USB serial string, nil for the first device.
    ///   - baudRate: the line speed (default 1 000 000).
    ///   - latencyMilliseconds: the latency timer (default 2 ms, the vendor's value).
    ///   - readerRunsWith: the RTS level that runs the reader (default ``ReaderRun/rtsLow``).
    ///   - resetOnOpen: pulse the reset on open (default false).
    public init(
        serial: String? = nil, baudRate: Int = 1_000_000, latencyMilliseconds: UInt8 = 2,
        readerRunsWith: ReaderRun = .rtsLow, resetOnOpen: Bool = false
    ) {
        self.serial = serial
        self.baudRate = baudRate
        self.latencyMilliseconds = max(1, latencyMilliseconds)
        self.readerRunsWith = readerRunsWith
        self.resetOnOpen = resetOnOpen
        self.quietPeriod = .milliseconds(50)
        self.listenWindow = .seconds(5)
        self.transferTimeout = .milliseconds(100)
    }
}
