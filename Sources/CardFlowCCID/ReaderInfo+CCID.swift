import CardFlow
import CardFlowCCIDProtocol

extension ReaderInfo {
    /// The backend-neutral description of a CCID reader with this class descriptor, its CCID
    /// facts kept in ``/CardFlow/ReaderInfo/details`` (exchange level, maximum message length, slots,
    /// protocols) for listings.
    ///
    /// - Parameters:
    ///   - id: the reader's id.
    ///   - name: the reader's name.
    ///   - vendorID: the USB vendor id.
    ///   - productID: the USB product id.
    ///   - descriptor: the interface's CCID class descriptor.
    ///   - backend: "usb" for a USB device, "sim" for the simulator.
    ///   - serialNumber: the USB serial number, when there is one.
    ///   - announcesPresence: whether the interface has an interrupt endpoint for NotifySlotChange.
    public init(
        id: String, name: String, vendorID: UInt16, productID: UInt16, descriptor: CCIDClassDescriptor,
        backend: String = "usb", serialNumber: String? = nil, announcesPresence: Bool = true
    ) {
        var protocols: Set<CardProtocol> = []
        if descriptor.protocols.contains(.t0) { protocols.insert(.t0) }
        if descriptor.protocols.contains(.t1) { protocols.insert(.t1) }
        // Short-APDU readers carry 261 bytes at most; the other levels carry extended APDUs
        // (chained by the reader, T=1 chaining at TPDU and character level, ENVELOPE for T=0).
        let longest = descriptor.exchangeLevel == .shortAPDU ? 261 : 65_544
        self.init(
            id: id, name: name, backend: backend, vendorID: vendorID, productID: productID,
            serialNumber: serialNumber,
            capabilities: ReaderCapabilities(
                maximumCommandLength: longest, protocols: protocols,
                announcesPresence: announcesPresence),
            details: [
                "exchangeLevel": descriptor.exchangeLevel.rawValue,
                "maxMessageLength": "\(descriptor.maxMessageLength)",
                "slots": "\(descriptor.slotCount)",
                "protocols": descriptor.protocols.names.joined(separator: ","),
            ])
    }
}

extension ReaderInfo {
    /// A USB CCID reader as libusb found it, with the class descriptor its driver uses (quirks
    /// applied): id `usb:BUS:DEV:INTERFACE`, the device's name, ids and serial number.
    public init(usb description: USBReaderDescription, descriptor: CCIDClassDescriptor) {
        self.init(
            id: Self.usbID(description),
            name: description.name, vendorID: description.vendorID, productID: description.productID,
            descriptor: descriptor, backend: "usb", serialNumber: description.serialNumber,
            announcesPresence: description.endpoints.interruptIn != nil)
        // bcdDevice is the release number the vendor gives the device: usually its firmware version.
        let minor = String(description.bcdDevice & 0xFF, radix: 16)
        details["bcdDevice"] =
            String(description.bcdDevice >> 8, radix: 16) + "." + (minor.count < 2 ? "0" + minor : minor)
    }
}

extension ReaderInfo {
    /// The id of a USB CCID interface: `usb:BUS:DEV:INTERFACE`.
    public static func usbID(_ description: USBReaderDescription) -> String {
        "usb:\(description.bus):\(description.address):\(description.interfaceNumber)"
    }

    /// Bus number and device address from a USB reader's id (``usbID(_:)``), nil for other ids.
    public var usbBusAddress: (bus: UInt8, address: UInt8)? {
        let parts = id.split(separator: ":")
        guard backend == "usb", parts.count >= 3, parts[0] == "usb", let bus = UInt8(parts[1]),
            let address = UInt8(parts[2])
        else {
            return nil
        }
        return (bus, address)
    }
}

extension USBReaderSelector {
    /// Whether a CardFlow reader is a USB reader this selector names (the hotplug filter of cardd).
    public func matches(_ info: ReaderInfo) -> Bool {
        guard info.backend == "usb" else { return false }
        let place = info.usbBusAddress
        return matches(
            vendorID: info.vendorID, productID: info.productID, bus: place?.bus, address: place?.address,
            serialNumber: info.serialNumber)
    }
}
