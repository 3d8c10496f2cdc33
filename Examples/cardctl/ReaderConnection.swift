import CCID
import CardFlow
import CardFlowCCID
import CardFlowPCSC
import CardFlowVPCD
import CardSimulatorReaders
import Logging
import PCSC
import ReaderSelection
import VPCD

/// The readers a `--reader` selector names, as CardFlow readers.
struct ReaderConnection {
    let readers: [Reader]
    /// What a reader source opened (the simulator's readers): closing saves its card state.
    private var sourceReaders: OpenedReaders?
    private var usb: (context: LibUSBContext, transports: [LibUSBTransport])?
    private var vpcd: VPCDListener?
    private var pcsc: PCSCContext?
    /// The selector the readers came from, and what chose it.
    private(set) var choice = ReaderChoice(selector: "", source: .option)

    /// The reader sources beyond usb, vpcd and pcsc that `--reader` takes: the simulator's `sim:`.
    static let sources: [any ReaderSource] = [SimulatorReaderSource()]

    /// With `--trace`, the readers' APDU trace is printed (to stderr when stdout carries data).
    static func open(_ options: GlobalOptions, logger: Logger, traceToStandardError: Bool = false) async throws
        -> ReaderConnection
    {
        try await open(
            options.readerChoice(), options: options, logger: logger, traceToStandardError: traceToStandardError)
    }

    /// Opens the readers of `choice` (not the options' own `--reader`: `bench --readers` and
    /// `bench compare` open several selectors) with the options' driver settings and trace.
    static func open(
        _ choice: ReaderChoice, options: GlobalOptions, logger: Logger, traceToStandardError: Bool = false
    ) async throws -> ReaderConnection {
        // Silently opening the readers a running cardd holds would be worse than refusing.
        if options.socket != nil {
            throw InputError(
                description: """
                    --socket works with list, watch, apdu, flow and jobs; this command opens readers itself. \
                    Drop --socket, or run the work as a cardd flow: cardctl --socket PATH --reader ID flow '{"kind":…}'
                    """)
        }
        var apduLogger = logger
        if options.trace {
            let write = traceToStandardError ? Output.standardError : Output.standardOutput
            apduLogger = Logger(label: "cardctl.apdu") { _ in APDUTraceHandler(write: write) }
            apduLogger.logLevel = .trace
        }
        var configuration = CCIDDriverConfiguration()
        if let timeout = options.timeout { configuration.readTimeout = .milliseconds(timeout) }
        switch options.transmissionProtocol {
        case "t0": configuration.protocolPreference = .t0
        case "t1": configuration.protocolPreference = .t1
        default: configuration.protocolPreference = .automatic
        }
        var connection = try await open(choice, configuration: configuration, logger: logger, apduLogger: apduLogger)
        connection.choice = choice
        return connection
    }

    /// The clock the readers' time runs on when it is not real time (`sim:…,clock=virtual`).
    var virtualClock: (any ElapsedClock)? { sourceReaders?.clock }

    private static func open(
        _ choice: ReaderChoice, configuration: CCIDDriverConfiguration,
        logger: Logger, apduLogger: Logger
    ) async throws -> ReaderConnection {
        switch try ReaderSelector(parsing: choice.selector, sources: sources) {
        case .source(let source, let text):
            let opened = try await source.open(
                text,
                options: ReaderSourceOptions(
                    logger: logger, apduLogger: apduLogger, driverConfiguration: configuration))
            var connection = ReaderConnection(readers: opened.readers)
            connection.sourceReaders = opened
            return connection
        case .vpcd(let host, let port):
            // cardctl is the reader: card commands wait (as long as the session's connect
            // timeout) for a card side to connect.
            let listener = try await VPCDListener.bind(host: host, port: port, logger: logger)
            var connection = ReaderConnection(readers: [Reader(vpcd: listener, logger: apduLogger)])
            connection.vpcd = listener
            return connection
        case .pcsc(let prefix):
            // pcscd owns the readers: CardFlow shares them with its other clients.
            let context = try await PCSCContext(logger: logger)
            let names = try await context.readers().filter { $0.hasPrefix(prefix) }
            var connection = ReaderConnection(
                readers: names.map { name in
                    // The driver's own lines (presence watch) stay out of the APDU trace.
                    Reader(
                        info: PCSCReaderDriver.info(reader: name),
                        driver: PCSCReaderDriver(context: context, reader: name, logger: logger),
                        logger: apduLogger)
                })
            connection.pcsc = context
            return connection
        case .usb(let selector):
            let context: LibUSBContext
            let found: [USBReaderDescription]
            do {
                context = try LibUSBContext(logger: logger)
                do { found = try context.readers() } catch { context.close(); throw error }
            } catch  where choice.source == .builtInDefault {
                // No USB at all (no usbfs in a container, libusb failing): say how to pick a reader.
                throw ReaderSelectionError.noDefaultReader(detail: "\(error)")
            }
            do {
                var matching = found.filter { selector.matches($0) }
                // `usb` means "the first reader" for card commands, but list shows them all.
                if case .first = selector {
                } else if let chosen = selector.select(from: matching) {
                    matching = [chosen]
                }
                var readers: [Reader] = []
                var transports: [LibUSBTransport] = []
                for description in matching {
                    let (transport, driver) = try context.openDriver(
                        for: description, configuration: configuration, logger: logger)
                    transports.append(transport)
                    let info = ReaderInfo(usb: description, descriptor: driver.descriptor)
                    // A multi-slot reader is one CardFlow reader per slot.
                    readers += Reader.slotReaders(info: info, driver: driver, logger: apduLogger)
                }
                var connection = ReaderConnection(readers: readers)
                connection.usb = (context, transports)
                return connection
            } catch {
                context.close()
                throw error
            }
        }
    }

    /// The reader card commands go to: the first one.
    var primary: Reader {
        get throws {
            guard let first = readers.first else { throw noReaderError }
            return first
        }
    }

    /// Why there is no reader to use: nothing matched the selector, or nothing was chosen and
    /// no USB reader is there.
    var noReaderError: ReaderSelectionError {
        choice.source == .builtInDefault ? .noDefaultReader(detail: nil) : .noReader(choice.selector)
    }

    /// Persists the simulated card's contents when `state=PATH` was given.
    func close() async throws {
        if let usb {
            for transport in usb.transports { transport.close() }
            usb.context.close()
        }
        await vpcd?.close()
        // PC/SC watch threads must be out of libpcsclite before the process exits.
        for reader in readers { await reader.pcsc?.close() }
        try? await pcsc?.release()
        try await sourceReaders?.close()
    }

    /// Opens the readers, runs `body` in a session on the primary reader with the options'
    /// policy, and closes everything however `body` ends.
    static func withPrimarySession<T: Sendable>(
        _ global: GlobalOptions,
        _ body: @escaping @Sendable (CardSession) async throws -> T
    ) async throws -> T {
        let connection = try await open(global, logger: CommandLogging.logger(trace: global.trace))
        do {
            let value = try await connection.primary.withSession(policy: global.policy, body)
            try await connection.close()
            return value
        } catch {
            try? await connection.close()
            throw error
        }
    }
}
