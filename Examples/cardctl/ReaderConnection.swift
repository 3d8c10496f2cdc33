import CCID
import CardFlow
import CardSimulator
import Logging

/// The readers a `--reader` selector names, as CardFlow readers.
struct ReaderConnection {
    let readers: [Reader]
    private let simulator: SimulatorSetup?

    /// With `--trace`, the readers' APDU trace is printed (to stderr when stdout carries data).
    static func open(_ options: GlobalOptions, logger: Logger, traceToStandardError: Bool = false) async throws -> ReaderConnection {
        var apduLogger = logger
        if options.trace {
            let write = traceToStandardError ? Output.standardError : Output.standardOutput
            apduLogger = Logger(label: "cardctl.apdu") { _ in APDUTraceHandler(write: write) }
            apduLogger.logLevel = .trace
        }
        var configuration = CCIDDriverConfiguration()
        if let timeout = options.timeout { configuration.readTimeout = .milliseconds(timeout) }
        switch try ReaderSelector(parsing: options.reader) {
        case .simulator(let specification):
            let setup = try await SimulatorSetup(specification: specification, logger: logger)
            return ReaderConnection(readers: setup.cardFlowReaders(driverConfiguration: configuration, logger: logger,
                                                                   apduLogger: apduLogger),
                                    simulator: setup)
        case .usbFirst, .usbVendorProduct, .usbBusDevice:
            throw ReaderSelectionError.usbTransportUnavailable
        }
    }

    /// The reader card commands go to: the first one.
    var primary: Reader {
        get throws {
            guard let first = readers.first else { throw ReaderSelectionError.noReader }
            return first
        }
    }

    /// Persists the simulated card's contents when `state=PATH` was given.
    func close() async throws {
        try await simulator?.saveCardState()
    }
}
