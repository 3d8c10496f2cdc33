/// Which USB reader to use, as written on a command line.
///
/// | text | meaning |
/// |---|---|
/// | `usb` | the first CCID reader found |
/// | `usb:VVVV:PPPP` | the first reader with this vendor and product ID (4 hex digits each) |
/// | `usb:BUS:DEV` | the reader at this bus number and device address (decimal, e.g. `usb:1:4` or `usb:001:004`) |
/// | `usb:serial=XYZ` | the reader whose iSerialNumber is `XYZ` |
///
/// Four digits in both fields always mean vendor and product (`usb:0001:0004` is hex); write bus
/// and device with fewer digits. Composite readers match once per CCID interface, and
/// ``select(from:)`` takes the lowest interface number.
///
/// ```swift
/// let selector = try USBReaderSelector(parsing: "usb:072F:2200")
/// let reader = selector.select(from: try context.readers())
/// ```
public enum USBReaderSelector: Sendable, Hashable, CustomStringConvertible {
    /// The first reader.
    case first
    /// The first reader with this idVendor and idProduct.
    case vendorProduct(vendorID: UInt16, productID: UInt16)
    /// The reader at this bus number and device address.
    case busAddress(bus: UInt8, address: UInt8)
    /// The reader with this serial number string.
    case serialNumber(String)

    /// Parses the textual form (see the type's documentation).
    public init(parsing text: String) throws(USBReaderSelectorError) {
        guard text == "usb" || text.hasPrefix("usb:") else { throw .notAUSBSelector(text) }
        if text == "usb" {
            self = .first
            return
        }
        let rest = String(text.dropFirst(4))
        if rest.hasPrefix("serial=") {
            let serial = String(rest.dropFirst(7))
            guard !serial.isEmpty else { throw .malformed(text, reason: "the serial number is empty") }
            self = .serialNumber(serial)
            return
        }
        let parts = rest.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty else {
            throw .malformed(text, reason: "expected usb:VVVV:PPPP, usb:BUS:DEV or usb:serial=XYZ")
        }
        if parts[0].count == 4 && parts[1].count == 4 {
            guard let vendor = UInt16(parts[0], radix: 16), let product = UInt16(parts[1], radix: 16) else {
                throw .malformed(text, reason: "vendor and product IDs must be 4 hexadecimal digits each")
            }
            self = .vendorProduct(vendorID: vendor, productID: product)
            return
        }
        guard parts.allSatisfy({ $0.allSatisfy(\.isASCII) && $0.allSatisfy(\.isNumber) }),
            let bus = UInt8(parts[0]), let address = UInt8(parts[1])
        else {
            throw .malformed(
                text, reason: "bus and device must be decimal numbers from 0 to 255 (or give VVVV:PPPP in hex)")
        }
        self = .busAddress(bus: bus, address: address)
    }

    /// Whether a reader fits the selector (``first`` fits every reader).
    public func matches(_ reader: USBReaderDescription) -> Bool {
        matches(
            vendorID: reader.vendorID, productID: reader.productID, bus: reader.bus, address: reader.address,
            serialNumber: reader.serialNumber)
    }

    /// Whether a reader with these USB facts fits the selector; nil facts match nothing but ``first``.
    public func matches(vendorID: UInt16?, productID: UInt16?, bus: UInt8?, address: UInt8?, serialNumber: String?)
        -> Bool
    {
        switch self {
        case .first: true
        case .vendorProduct(let wantedVendor, let wantedProduct): vendorID == wantedVendor && productID == wantedProduct
        case .busAddress(let wantedBus, let wantedAddress): bus == wantedBus && address == wantedAddress
        case .serialNumber(let serial): serialNumber == serial
        }
    }

    /// The first matching reader in bus, address and interface order, or nil.
    public func select(from readers: [USBReaderDescription]) -> USBReaderDescription? {
        readers.sorted { ($0.bus, $0.address, $0.interfaceNumber) < ($1.bus, $1.address, $1.interfaceNumber) }
            .first(where: matches)
    }

    /// The textual form, which ``init(parsing:)`` reads back.
    public var description: String {
        switch self {
        case .first: "usb"
        case .vendorProduct(let vendorID, let productID): "usb:\(hex4(vendorID)):\(hex4(productID))"
        case .busAddress(let bus, let address): "usb:\(bus):\(address)"
        case .serialNumber(let serial): "usb:serial=\(serial)"
        }
    }
}
