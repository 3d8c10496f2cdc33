import CCardFlowLibUSB
import Logging

extension LibUSBContext {
    /// Every CCID reader on the bus: one description per CCID interface, in bus, address and
    /// interface order.
    ///
    /// Devices without a CCID interface are never opened. Those with one are opened briefly to
    /// read their strings (manufacturer, product, serial number, interface name); when that
    /// fails, for lack of permission for instance, the strings are nil and the reader is still
    /// listed. Blocking: string reads are short synchronous control transfers.
    public func readers() throws(USBTransportError) -> [USBReaderDescription] {
        try whileOpen { () throws(USBTransportError) in
            try withDeviceList { devices in devices.flatMap(describeReaders) }.sorted(by: Self.busOrder)
        }
    }

    /// The readers of the device at `bus`/`address` (none when it is gone or is no reader).
    func readers(bus: UInt8, address: UInt8) -> [USBReaderDescription] {
        let readers = try? whileOpen { () throws(USBTransportError) in
            try withDeviceList { devices in
                devices.filter { libusb_get_bus_number($0) == bus && libusb_get_device_address($0) == address }
                    .flatMap(describeReaders)
            }
        }
        return (readers ?? []).sorted(by: Self.busOrder)
    }

    /// Bus number and address of every device on the bus (cheap: no device is opened).
    func deviceAddresses() throws(USBTransportError) -> Set<USBDeviceAddress> {
        try whileOpen { () throws(USBTransportError) in
            try withDeviceList { devices in
                Set(
                    devices.map {
                        USBDeviceAddress(bus: libusb_get_bus_number($0), address: libusb_get_device_address($0))
                    })
            }
        }
    }

    /// Opens and claims the reader's interface.
    ///
    /// libusb detaches a kernel driver bound to the interface while it is claimed (on Linux,
    /// pn533_usb binds the ACR122U) and re-attaches it on close. SET_INTERFACE (alternate
    /// setting 0) resynchronises the pipes, except for readers with ``CCIDQuirks/noSetInterface``.
    ///
    /// - Throws: ``USBTransportError/busy(detail:)`` when another program (pcscd) or a kernel
    ///   driver holds the interface, ``USBTransportError/accessDenied(detail:)`` without
    ///   permission on the device node, ``USBTransportError/noDevice`` when the reader is gone.
    public func openTransport(for reader: USBReaderDescription, quirks: CCIDQuirks = []) throws(USBTransportError)
        -> LibUSBTransport
    {
        try whileOpen { () throws(USBTransportError) in try openTransportWhileOpen(for: reader, quirks: quirks) }
    }

    private func openTransportWhileOpen(for reader: USBReaderDescription, quirks: CCIDQuirks) throws(USBTransportError)
        -> LibUSBTransport
    {
        let handle = try withDeviceList { devices throws(USBTransportError) -> OpaquePointer in
            guard let device = devices.first(where: { Self.isDevice($0, of: reader) }) else { throw .noDevice }
            var handle: OpaquePointer?
            let result = libusb_open(device, &handle)
            guard result == 0, let handle else {
                throw LibUSBErrorMapping.transportError(
                    result, operation: "opening \(reader.devicePath)",
                    devicePath: reader.devicePath)
            }
            return handle
        }
        do throws(USBTransportError) {
            try claim(reader, handle: handle, quirks: quirks)
        } catch {
            libusb_close(handle)
            throw error
        }
        let transport = LibUSBTransport(context: self, handle: handle, reader: reader, quirks: quirks, logger: logger)
        try transportOpened(transport)
        logger.debug("USB reader opened", metadata: ["reader": "\(reader)"])
        return transport
    }

    private func claim(_ reader: USBReaderDescription, handle: OpaquePointer, quirks: CCIDQuirks)
        throws(USBTransportError)
    {
        let interface = Int32(reader.interfaceNumber)
        let detach = libusb_set_auto_detach_kernel_driver(handle, 1)
        if detach != 0 {
            // Not supported outside Linux; claiming then fails with BUSY if a driver holds it.
            logger.debug(
                "automatic kernel driver detach unavailable", metadata: ["error": "\(LibUSBErrorMapping.name(detach))"])
        }
        let claimed = libusb_claim_interface(handle, interface)
        guard claimed == 0 else {
            throw LibUSBErrorMapping.transportError(
                claimed, operation: "claiming interface \(interface) of \(reader.devicePath)",
                devicePath: reader.devicePath, interfaceNumber: reader.interfaceNumber)
        }
        guard !quirks.contains(.noSetInterface) else { return }
        let selected = libusb_set_interface_alt_setting(handle, interface, Int32(reader.alternateSetting))
        if selected != 0 {
            // Some readers stall SET_INTERFACE; the pipes usually work anyway.
            logger.debug(
                "SET_INTERFACE failed; continuing", metadata: ["error": "\(LibUSBErrorMapping.name(selected))"])
        }
    }

    // MARK: - Device list and descriptions

    /// Runs `body` over libusb's current device list, which is freed afterwards (the devices are
    /// only valid inside `body`; libusb_open takes its own reference).
    private func withDeviceList<T>(_ body: ([OpaquePointer]) throws(USBTransportError) -> T) throws(USBTransportError)
        -> T
    {
        var list: UnsafeMutablePointer<OpaquePointer?>?
        let count = libusb_get_device_list(pointer, &list)
        guard count >= 0, let list else {
            throw LibUSBErrorMapping.transportError(
                Int32(truncatingIfNeeded: count), operation: "listing USB devices",
                devicePath: "/dev/bus/usb")
        }
        defer { libusb_free_device_list(list, 1) }
        let devices = (0..<count).compactMap { list[$0] }
        return try body(devices)
    }

    private static func isDevice(_ device: OpaquePointer, of reader: USBReaderDescription) -> Bool {
        guard libusb_get_bus_number(device) == reader.bus, libusb_get_device_address(device) == reader.address else {
            return false
        }
        var descriptor = libusb_device_descriptor()
        guard libusb_get_device_descriptor(device, &descriptor) == 0 else { return false }
        // Addresses are reused eventually; make sure it is still the same kind of device.
        return descriptor.idVendor == reader.vendorID && descriptor.idProduct == reader.productID
    }

    /// The CCID readers of one device.
    private func describeReaders(_ device: OpaquePointer) -> [USBReaderDescription] {
        let bus = libusb_get_bus_number(device)
        let address = libusb_get_device_address(device)
        var deviceDescriptor = libusb_device_descriptor()
        guard libusb_get_device_descriptor(device, &deviceDescriptor) == 0 else { return [] }
        guard let layout = Self.configurationLayout(of: device) else {
            logger.debug("no configuration descriptor", metadata: ["bus": "\(bus)", "address": "\(address)"])
            return []
        }
        let scan = layout.scanForCCIDInterfaces()
        for (interface, reason) in scan.skipped {
            logger.debug(
                "skipping smart-card interface",
                metadata: [
                    "bus": "\(bus)", "address": "\(address)", "interface": "\(interface)", "reason": "\(reason)",
                ])
        }
        guard !scan.found.isEmpty else { return [] }

        var strings = LibUSBStringReader(device: device, logger: logger)
        defer { strings.close() }
        return scan.found.map { interface in
            USBReaderDescription(
                bus: bus, address: address, vendorID: deviceDescriptor.idVendor, productID: deviceDescriptor.idProduct,
                bcdDevice: deviceDescriptor.bcdDevice,
                manufacturer: strings.string(at: deviceDescriptor.iManufacturer),
                product: strings.string(at: deviceDescriptor.iProduct),
                serialNumber: strings.string(at: deviceDescriptor.iSerialNumber),
                interfaceNumber: interface.number, alternateSetting: interface.alternateSetting,
                interfaceName: strings.string(at: interface.nameIndex),
                descriptor: interface.descriptor, endpoints: interface.endpoints,
                ccidInterfaceCount: scan.found.count)
        }
    }

    /// Copies the active configuration (or, for an unconfigured device, the first one) out of
    /// libusb's parsed descriptor. libusb caches these, so no I/O happens.
    static func configurationLayout(of device: OpaquePointer) -> USBConfigurationLayout? {
        var configuration: UnsafeMutablePointer<libusb_config_descriptor>?
        if libusb_get_active_config_descriptor(device, &configuration) != 0 {
            configuration = nil
            guard libusb_get_config_descriptor(device, 0, &configuration) == 0 else { return nil }
        }
        guard let configuration else { return nil }
        defer { libusb_free_config_descriptor(configuration) }
        var interfaces: [USBInterfaceLayout] = []
        for interfaceIndex in 0..<Int(configuration.pointee.bNumInterfaces) {
            let interface = configuration.pointee.interface[interfaceIndex]
            for settingIndex in 0..<Int(interface.num_altsetting) {
                let setting = interface.altsetting[settingIndex]
                let endpoints = (0..<Int(setting.bNumEndpoints)).map { endpointIndex in
                    let endpoint = setting.endpoint[endpointIndex]
                    return USBEndpointLayout(
                        address: endpoint.bEndpointAddress, attributes: endpoint.bmAttributes,
                        maxPacketSize: Int(endpoint.wMaxPacketSize & 0x07FF),
                        interval: endpoint.bInterval,
                        extra: bytes(endpoint.extra, count: endpoint.extra_length))
                }
                interfaces.append(
                    USBInterfaceLayout(
                        number: setting.bInterfaceNumber, alternateSetting: setting.bAlternateSetting,
                        interfaceClass: setting.bInterfaceClass, interfaceSubclass: setting.bInterfaceSubClass,
                        interfaceProtocol: setting.bInterfaceProtocol, nameIndex: setting.iInterface,
                        extra: bytes(setting.extra, count: setting.extra_length), endpoints: endpoints))
            }
        }
        return USBConfigurationLayout(interfaces: interfaces)
    }

    private static func bytes(_ pointer: UnsafePointer<UInt8>?, count: Int32) -> [UInt8] {
        guard let pointer, count > 0 else { return [] }
        return Array(UnsafeBufferPointer(start: pointer, count: Int(count)))
    }

    private static func busOrder(_ lhs: USBReaderDescription, _ rhs: USBReaderDescription) -> Bool {
        (lhs.bus, lhs.address, lhs.interfaceNumber) < (rhs.bus, rhs.address, rhs.interfaceNumber)
    }
}
