import CardSimulator

/// What `--reader` names.
enum ReaderSelector: Equatable {
    /// The first USB CCID reader.
    case usbFirst
    case usbVendorProduct(vendorID: UInt16, productID: UInt16)
    case usbBusDevice(bus: Int, device: Int)
    case simulator(SimulatorSpecification)

    init(parsing text: String) throws {
        if text == "sim" || text.hasPrefix("sim:") || text.hasPrefix("sim,") {
            self = .simulator(try SimulatorSpecification(parsing: text))
            return
        }
        guard text == "usb" || text.hasPrefix("usb:") else { throw ReaderSelectionError.invalidSelector(text) }
        let parts = text.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
        switch parts.count {
        case 1:
            self = .usbFirst
        case 3 where parts[1].count == 4 && parts[2].count == 4:
            guard let vendor = UInt16(parts[1], radix: 16), let product = UInt16(parts[2], radix: 16) else {
                throw ReaderSelectionError.invalidSelector(text)
            }
            self = .usbVendorProduct(vendorID: vendor, productID: product)
        case 3:
            guard let bus = Int(parts[1]), let device = Int(parts[2]) else { throw ReaderSelectionError.invalidSelector(text) }
            self = .usbBusDevice(bus: bus, device: device)
        default:
            throw ReaderSelectionError.invalidSelector(text)
        }
    }
}

/// A reader that cannot be found or opened.
enum ReaderSelectionError: Error, CustomStringConvertible {
    case invalidSelector(String)
    case usbTransportUnavailable
    case noReader

    var description: String {
        switch self {
        case .invalidSelector(let text):
            "invalid reader selector '\(text)'; use usb, usb:VVVV:PPPP (hex), usb:BUS:DEV, or sim[:CARD][,option=value...]"
        case .usbTransportUnavailable:
            "this build of cardctl has no libusb transport yet; use --reader sim[:CARD] for the built-in simulator"
        case .noReader:
            "no reader found"
        }
    }
}
