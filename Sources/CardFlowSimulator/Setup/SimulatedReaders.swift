import CardFlow
import CardFlowCCID
import CardFlowCCIDProtocol
import Logging

extension Reader {
    /// A CardFlow reader on a simulated CCID reader, through the in-memory transport: the same
    /// driver, session and flow code that runs against USB readers. It is the reader's slot 0;
    /// ``simulatedSlots(_:id:interfaceNumber:name:driverConfiguration:logger:apduLogger:)``
    /// gives every slot of a multi-slot reader.
    ///
    /// - Parameters:
    ///   - virtual: the simulated reader.
    ///   - id: the reader's id.
    ///   - interfaceNumber: the CCID interface's number.
    ///   - name: the reader's name; the simulated reader's when nil.
    ///   - driverConfiguration: the CCID driver's timeouts, bounds and quirks.
    ///   - logger: the driver's logger.
    ///   - apduLogger: the reader's logger (APDU trace at `trace`); `logger` when nil.
    public static func simulated(
        _ virtual: VirtualCCIDReader, id: String = "sim:0", interfaceNumber: UInt8 = 0,
        name: String? = nil,
        driverConfiguration: CCIDDriverConfiguration = CCIDDriverConfiguration(),
        logger: Logger = Logger(label: "cardflow.reader"), apduLogger: Logger? = nil
    ) -> Reader {
        let (info, driver) = simulatedDriver(
            virtual, id: id, interfaceNumber: interfaceNumber, name: name,
            driverConfiguration: driverConfiguration, logger: logger)
        return Reader(info: info, driver: driver, logger: apduLogger ?? logger)
    }

    /// One CardFlow reader per slot of a simulated CCID reader, sharing one driver (see
    /// ``/CardFlowCCID/CardFlow/Reader/slotReaders(info:driver:logger:metricsFactory:)``): a single-slot reader gives
    /// one reader with `id`, a multi-slot one readers `id/0`, `id/1`, … named "… slot N".
    public static func simulatedSlots(
        _ virtual: VirtualCCIDReader, id: String = "sim:0", interfaceNumber: UInt8 = 0,
        name: String? = nil,
        driverConfiguration: CCIDDriverConfiguration = CCIDDriverConfiguration(),
        logger: Logger = Logger(label: "cardflow.reader"), apduLogger: Logger? = nil
    ) -> [Reader] {
        let (info, driver) = simulatedDriver(
            virtual, id: id, interfaceNumber: interfaceNumber, name: name,
            driverConfiguration: driverConfiguration, logger: logger)
        return slotReaders(info: info, driver: driver, logger: apduLogger ?? logger)
    }

    private static func simulatedDriver(
        _ virtual: VirtualCCIDReader, id: String, interfaceNumber: UInt8, name: String?,
        driverConfiguration: CCIDDriverConfiguration,
        logger: Logger
    ) -> (ReaderInfo, CCIDDriver) {
        let configuration = virtual.configuration
        // With many simulated readers, the driver's lines must say which reader they are about.
        var driverLogger = logger
        driverLogger[metadataKey: "reader"] = "\(id)"
        let driver = CCIDDriver(
            transport: InMemoryUSBTransport(reader: virtual), descriptor: configuration.descriptor,
            interfaceNumber: interfaceNumber, configuration: driverConfiguration, logger: driverLogger)
        let info = ReaderInfo(
            id: id, name: name ?? configuration.name, vendorID: configuration.vendorID,
            productID: configuration.productID, descriptor: configuration.descriptor, backend: "sim")
        return (info, driver)
    }
}

extension SimulatorSetup {
    /// CardFlow readers for every simulated interface, ids `sim:0`, `sim:1`, …; a multi-slot
    /// interface gives one reader per slot, `sim:0/0`, `sim:0/1`, …
    ///
    /// - Parameters:
    ///   - driverConfiguration: the CCID drivers' timeouts, bounds and quirks.
    ///   - logger: the drivers' logger.
    ///   - apduLogger: the readers' logger (APDU trace at `trace`); `logger` when nil.
    public func cardFlowReaders(
        driverConfiguration: CCIDDriverConfiguration = CCIDDriverConfiguration(),
        logger: Logger = Logger(label: "cardflow.reader"),
        apduLogger: Logger? = nil
    ) -> [CardFlow.Reader] {
        readers.enumerated().flatMap { index, simulated in
            CardFlow.Reader.simulatedSlots(
                simulated.reader, id: "sim:\(index)", interfaceNumber: simulated.interfaceNumber,
                name: simulated.name, driverConfiguration: driverConfiguration,
                logger: logger, apduLogger: apduLogger)
        }
    }
}
