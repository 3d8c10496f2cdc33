import CCID
import CardFlow
import Logging

extension Reader {
    /// A CardFlow reader on a simulated CCID reader, through the in-memory transport: the same
    /// driver, session and flow code that runs against USB readers.
    public static func simulated(_ virtual: VirtualCCIDReader, id: String = "sim:0",
                                 driverConfiguration: CCIDDriverConfiguration = CCIDDriverConfiguration(),
                                 logger: Logger = Logger(label: "cardflow.reader")) -> Reader {
        let configuration = virtual.configuration
        let driver = CCIDDriver(transport: InMemoryUSBTransport(reader: virtual), descriptor: configuration.descriptor,
                                configuration: driverConfiguration, logger: logger)
        let info = ReaderInfo(id: id, name: configuration.name, vendorID: configuration.vendorID,
                              productID: configuration.productID, descriptor: configuration.descriptor)
        return Reader(info: info, driver: driver, logger: logger)
    }
}

extension SimulatorSetup {
    /// CardFlow readers for every simulated interface, ids `sim:0`, `sim:1`, …
    ///
    /// - Parameter apduLogger: the readers' logger (APDU trace at `trace`); `logger` when nil.
    public func cardFlowReaders(driverConfiguration: CCIDDriverConfiguration = CCIDDriverConfiguration(),
                                logger: Logger = Logger(label: "cardflow.reader"),
                                apduLogger: Logger? = nil) -> [CardFlow.Reader] {
        readers.enumerated().map { index, simulated in
            let driver = CCIDDriver(transport: InMemoryUSBTransport(reader: simulated.reader), descriptor: simulated.descriptor,
                                    interfaceNumber: simulated.interfaceNumber, configuration: driverConfiguration, logger: logger)
            let info = ReaderInfo(id: "sim:\(index)", name: simulated.name, vendorID: simulated.configuration.vendorID,
                                  productID: simulated.configuration.productID, descriptor: simulated.descriptor)
            return CardFlow.Reader(info: info, driver: driver, logger: apduLogger ?? logger)
        }
    }
}
