import CardFlowHex

/// One CCID reader on the USB bus: a CCID interface of a device, with what is needed to name,
/// select and open it.
///
/// A composite device (ACR1252U: PICC and SAM) yields one description per CCID interface.
///
/// ```swift
/// let context = try LibUSBContext()
/// for reader in try context.readers() {
///     print(reader.name, reader.devicePath, reader.descriptor.exchangeLevel)
/// }
/// ```
public struct USBReaderDescription: Sendable, Hashable, CustomStringConvertible {
    /// USB bus number.
    public var bus: UInt8
    /// Device address on the bus (changes on every replug).
    public var address: UInt8
    /// idVendor.
    public var vendorID: UInt16
    /// idProduct.
    public var productID: UInt16
    /// bcdDevice: the firmware release, which some quirks depend on.
    public var bcdDevice: UInt16
    /// iManufacturer string; nil when absent or unreadable (no permission to open the device).
    public var manufacturer: String?
    /// iProduct string; nil when absent or unreadable.
    public var product: String?
    /// iSerialNumber string; nil when absent or unreadable.
    public var serialNumber: String?
    /// bInterfaceNumber of the CCID interface.
    public var interfaceNumber: UInt8
    /// bAlternateSetting the CCID function was found in.
    public var alternateSetting: UInt8
    /// iInterface string (e.g. "ACR1252 Dual Reader PICC"); nil when absent or unreadable.
    public var interfaceName: String?
    /// The CCID class descriptor as the reader announces it (reader quirks not applied).
    public var descriptor: CCIDClassDescriptor
    /// The interface's pipes.
    public var endpoints: USBCCIDEndpoints
    /// How many CCID interfaces the device has; above 1 the name includes the interface's.
    public var ccidInterfaceCount: Int

    public init(
        bus: UInt8, address: UInt8, vendorID: UInt16, productID: UInt16, bcdDevice: UInt16,
        manufacturer: String? = nil, product: String? = nil, serialNumber: String? = nil,
        interfaceNumber: UInt8, alternateSetting: UInt8 = 0, interfaceName: String? = nil,
        descriptor: CCIDClassDescriptor, endpoints: USBCCIDEndpoints, ccidInterfaceCount: Int = 1
    ) {
        self.bus = bus
        self.address = address
        self.vendorID = vendorID
        self.productID = productID
        self.bcdDevice = bcdDevice
        self.manufacturer = manufacturer
        self.product = product
        self.serialNumber = serialNumber
        self.interfaceNumber = interfaceNumber
        self.alternateSetting = alternateSetting
        self.interfaceName = interfaceName
        self.descriptor = descriptor
        self.endpoints = endpoints
        self.ccidInterfaceCount = ccidInterfaceCount
    }

    /// A readable name: manufacturer and product, plus the interface's own name when the device
    /// has several CCID interfaces, e.g. "ACS ACR1252 Dual Reader PICC".
    public var name: String {
        Self.readerName(
            manufacturer: manufacturer, product: product, interfaceName: interfaceName,
            interfaceNumber: interfaceNumber, vendorID: vendorID, productID: productID,
            hasSeveralCCIDInterfaces: ccidInterfaceCount > 1)
    }

    /// The usbfs node of the device, e.g. `/dev/bus/usb/001/004`.
    public var devicePath: String { Self.devicePath(bus: bus, address: address) }

    /// `VVVV:PPPP` in upper-case hex.
    public var vendorProduct: String { "\(hex4(vendorID)):\(hex4(productID))" }

    public var description: String {
        "\(name) (\(vendorProduct), bus \(bus) device \(address), interface \(interfaceNumber))"
    }

    /// The usbfs node of a device.
    static func devicePath(bus: UInt8, address: UInt8) -> String {
        "/dev/bus/usb/\(decimal3(bus))/\(decimal3(address))"
    }

    /// Builds the reader name. Interface names often repeat the product ("ACR1252 Dual Reader
    /// PICC" on product "ACR1252 Dual Reader"); only the part after the product is then appended.
    static func readerName(
        manufacturer: String?, product: String?, interfaceName: String?, interfaceNumber: UInt8,
        vendorID: UInt16, productID: UInt16, hasSeveralCCIDInterfaces: Bool
    ) -> String {
        let product = product.flatMap(nonBlank)
        let manufacturer = manufacturer.flatMap(nonBlank)
        var base: String
        switch (manufacturer, product) {
        case (let manufacturer?, let product?):
            base = product.lowercased().hasPrefix(manufacturer.lowercased()) ? product : "\(manufacturer) \(product)"
        case (nil, let product?):
            base = product
        case (let manufacturer?, nil):
            base = "\(manufacturer) CCID reader \(hex4(vendorID)):\(hex4(productID))"
        case (nil, nil):
            base = "CCID reader \(hex4(vendorID)):\(hex4(productID))"
        }
        guard hasSeveralCCIDInterfaces else { return base }
        guard let interfaceName = interfaceName.flatMap(nonBlank) else {
            return "\(base) interface \(interfaceNumber)"
        }
        if let product, interfaceName.hasPrefix(product) {
            let rest = interfaceName.dropFirst(product.count).trimmingSpaces()
            base += rest.isEmpty ? " interface \(interfaceNumber)" : " \(rest)"
        } else if interfaceName != base {
            base += " \(interfaceName)"
        } else {
            base += " interface \(interfaceNumber)"
        }
        return base
    }

    private static func nonBlank(_ text: String) -> String? {
        let trimmed = Substring(text).trimmingSpaces()
        return trimmed.isEmpty ? nil : trimmed
    }
}

/// `072F`: a 16-bit value as four upper-case hex digits (vendor and product IDs).
func hex4(_ value: UInt16) -> String {
    HexFormat.digits(value)
}

private func decimal3(_ value: UInt8) -> String {
    let digits = String(value)
    return String(repeating: "0", count: 3 - digits.count) + digits
}

extension Substring {
    fileprivate func trimmingSpaces() -> String {
        String(drop(while: \.isWhitespace).reversed().drop(while: \.isWhitespace).reversed())
    }
}
