import CCID
import CardFlow
import CardSimulator
import Logging

/// The readers a `--reader` selector names, as CardFlow readers.
struct ReaderConnection {
    let readers: [Reader]
    private let simulator: SimulatorSetup?

    static func open(_ options: GlobalOptions, logger: Logger) async throws -> ReaderConnection {
        var configuration = CCIDDriverConfiguration()
        if let timeout = options.timeout { configuration.readTimeout = .milliseconds(timeout) }
        switch try ReaderSelector(parsing: options.reader) {
        case .simulator(let specification):
            let setup = try await SimulatorSetup(specification: specification, logger: logger)
            return ReaderConnection(readers: setup.cardFlowReaders(driverConfiguration: configuration, logger: logger),
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
