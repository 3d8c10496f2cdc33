import CCID
import CardFlow
import Logging

extension Reader {
    /// A CardFlow reader on a simulated CCID reader, through the in-memory transport: the same
    /// driver, session and flow code that runs against USB readers.
    ///
    /// - Parameters:
    ///   - logger: the driver's logger.
    ///   - apduLogger: the reader's logger (APDU trace at `trace`); `logger` when nil.
    public static func simulated(_ virtual: VirtualCCIDReader, id: String = "sim:0", interfaceNumber: UInt8 = 0,
                                 name: String? = nil,
                                 driverConfiguration: CCIDDriverConfiguration = CCIDDriverConfiguration(),
                                 logger: Logger = Logger(label: "cardflow.reader"), apduLogger: Logger? = nil) -> Reader {
        let configuration = virtual.configuration
        // With many simulated readers, the driver's lines must say which reader they are about.
        var driverLogger = logger
        driverLogger[metadataKey: "reader"] = "\(id)"
        let driver = CCIDDriver(transport: InMemoryUSBTransport(reader: virtual), descriptor: configuration.descriptor,
                                interfaceNumber: interfaceNumber, configuration: driverConfiguration, logger: driverLogger)
        let info = ReaderInfo(id: id, name: name ?? configuration.name, vendorID: configuration.vendorID,
                              productID: configuration.productID, descriptor: configuration.descriptor)
        return Reader(info: info, driver: driver, logger: apduLogger ?? logger)
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
            CardFlow.Reader.simulated(simulated.reader, id: "sim:\(index)", interfaceNumber: simulated.interfaceNumber,
                                      name: simulated.name, driverConfiguration: driverConfiguration,
                                      logger: logger, apduLogger: apduLogger)
        }
    }
}
