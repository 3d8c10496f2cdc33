import CCID
import CardFlow
import CardSimulator
import Logging

/// The readers a `--reader` selector names, opened with a CCID driver each.
struct ReaderConnection {
    struct OpenReader {
        let name: String
        let vendorID: UInt16
        let productID: UInt16
        let driver: CCIDDriver
    }

    let readers: [OpenReader]
    private let simulator: SimulatorSetup?

    static func open(_ options: GlobalOptions, logger: Logger) async throws -> ReaderConnection {
        var configuration = CCIDDriverConfiguration()
        if let timeout = options.timeout { configuration.readTimeout = .milliseconds(timeout) }
        switch try ReaderSelector(parsing: options.reader) {
        case .simulator(let specification):
            let setup = try await SimulatorSetup(specification: specification, logger: logger)
            let readers = setup.readers.map { simulated in
                OpenReader(name: simulated.name, vendorID: simulated.configuration.vendorID,
                           productID: simulated.configuration.productID,
                           driver: CCIDDriver(transport: InMemoryUSBTransport(reader: simulated.reader),
                                              descriptor: simulated.descriptor, interfaceNumber: simulated.interfaceNumber,
                                              configuration: configuration, logger: logger))
            }
            return ReaderConnection(readers: readers, simulator: setup)
        case .usbFirst, .usbVendorProduct, .usbBusDevice:
            throw ReaderSelectionError.usbTransportUnavailable
        }
    }

    /// The reader card commands go to: the first one.
    var primary: OpenReader {
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
