import Logging

extension LibUSBContext {
    /// Picks the reader `selector` names, applies its quirks, opens and claims it, and builds
    /// the ``CCIDDriver`` for it: the one call a command-line tool or a test needs.
    ///
    /// ```swift
    /// let context = try LibUSBContext()
    /// let (reader, transport, driver) = try context.openDriver(.vendorProduct(vendorID: 0x072F, productID: 0x2200))
    /// defer { transport.close() }
    /// print(reader.name, try await driver.powerOn())
    /// ```
    ///
    /// Quirks from ``CCIDReaderQuirkTable`` are added to `configuration.quirks`, and its
    /// descriptor corrections (exchange level, bPINSupport) reach the driver; the returned
    /// description keeps the descriptor as the reader announced it. Firmware warnings are logged.
    ///
    /// - Throws: ``USBReaderSelectorError/noMatchingReader(_:readersFound:)`` when no reader
    ///   matches, or a ``USBTransportError`` from enumerating or opening (busy, access denied…).
    public func openDriver(
        _ selector: USBReaderSelector,
        configuration: CCIDDriverConfiguration = CCIDDriverConfiguration(),
        logger: Logger? = nil
    ) throws -> (reader: USBReaderDescription, transport: LibUSBTransport, driver: CCIDDriver) {
        let readers = try readers()
        guard let reader = selector.select(from: readers) else {
            throw USBReaderSelectorError.noMatchingReader(selector, readersFound: readers.count)
        }
        let (transport, driver) = try openDriver(for: reader, configuration: configuration, logger: logger)
        return (reader, transport, driver)
    }

    /// Like ``openDriver(_:configuration:logger:)`` for a reader already described (by
    /// ``readers()`` or a ``USBReaderEvent/arrived(_:)`` event).
    public func openDriver(
        for reader: USBReaderDescription,
        configuration: CCIDDriverConfiguration = CCIDDriverConfiguration(),
        logger: Logger? = nil
    ) throws(USBTransportError) -> (transport: LibUSBTransport, driver: CCIDDriver) {
        let logger = logger ?? self.logger
        let profile = CCIDReaderQuirkTable.lookup(
            vendorID: reader.vendorID, productID: reader.productID,
            bcdDevice: reader.bcdDevice)
        for warning in profile.warnings {
            logger.warning("\(warning)", metadata: ["reader": "\(reader.name)"])
        }
        let configuration = profile.applied(to: configuration)
        let descriptor = profile.applied(to: reader.descriptor)
        if descriptor != reader.descriptor {
            logger.debug(
                "reader descriptor corrected by the quirk table",
                metadata: [
                    "reader": "\(reader.name)", "exchangeLevel": "\(descriptor.exchangeLevel)",
                ])
        }
        let transport = try openTransport(for: reader, quirks: configuration.quirks)
        let driver = CCIDDriver(
            transport: transport, descriptor: descriptor, interfaceNumber: reader.interfaceNumber,
            configuration: configuration, logger: logger)
        return (transport, driver)
    }
}
