import CardFlow
import Logging

/// The readers a `--reader` selector names, as CardFlow readers, opened through the source
/// (``readerSources``) that serves the selector's scheme.
struct ReaderConnection {
    let readers: [Reader]
    /// What the source opened: closing releases it (and saves a simulated card's state).
    private let opened: OpenedReaders
    /// The selector the readers came from, and what chose it.
    private(set) var choice = ReaderChoice(selector: "", source: .option)
    /// Its entry in ``OpenReaderConnections``, which closes it at exit if the command did not.
    private var registration = 0

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
        var sourceOptions = ReaderSourceOptions(logger: logger, apduLogger: apduLogger)
        if let timeout = options.timeout { sourceOptions.readTimeout = .milliseconds(timeout) }
        sourceOptions.transmissionProtocol = options.transmissionProtocol.flatMap(CardProtocol.init(rawValue:))
        let selector = try ReaderSelector(parsing: choice.selector, sources: readerSources)
        let opened: OpenedReaders
        do {
            opened = try await selector.open(options: sourceOptions)
        } catch let error as ReaderBackendUnavailable where choice.source == .builtInDefault {
            // No USB at all (no usbfs in a container, libusb failing): say how to pick a reader.
            throw ReaderSelectionError.noDefaultReader(detail: "\(error)")
        }
        var connection = ReaderConnection(readers: opened.readers, opened: opened)
        connection.choice = choice
        connection.registration = await OpenReaderConnections.shared.add(opened)
        return connection
    }

    /// The clock the readers' time runs on when it is not real time (`sim:…,clock=virtual`).
    var virtualClock: (any ElapsedClock)? { opened.clock }

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

    /// Releases the readers, and persists the simulated card's contents when `state=PATH` was given.
    func close() async throws {
        await OpenReaderConnections.shared.remove(registration)
        try await opened.close()
    }

    /// Opens the readers, runs `body` in a session on the primary reader with the options'
    /// policy, and closes everything however `body` ends.
    static func withPrimarySession<T: Sendable>(
        _ global: GlobalOptions,
        _ body: @escaping @Sendable (CardSession) async throws -> T
    ) async throws -> T {
        try await withPrimaryReader(global) { reader in
            try await reader.withSession(policy: global.policy(for: reader), body)
        }
    }

    /// Opens the readers, runs `body` with the primary reader (no session: for what a reader
    /// does itself, such as a uFR reader's own DESFire commands), and closes everything however
    /// `body` ends.
    static func withPrimaryReader<T: Sendable>(
        _ global: GlobalOptions, _ body: (Reader) async throws -> T
    ) async throws -> T {
        let connection = try await open(global, logger: CommandLogging.logger(trace: global.trace))
        do {
            let value = try await body(try connection.primary)
            try await connection.close()
            return value
        } catch {
            try? await connection.close()
            throw error
        }
    }
}
