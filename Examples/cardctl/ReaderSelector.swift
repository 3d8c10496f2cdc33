import CCID
import CardSimulator

/// What `--reader` names.
enum ReaderSelector {
    /// USB CCID readers: `usb`, `usb:VVVV:PPPP`, `usb:BUS:DEV`, `usb:serial=XYZ`.
    case usb(USBReaderSelector)
    case simulator(SimulatorSpecification)

    init(parsing text: String) throws {
        if text == "sim" || text.hasPrefix("sim:") || text.hasPrefix("sim,") {
            self = .simulator(try SimulatorSpecification(parsing: text))
            return
        }
        guard text == "usb" || text.hasPrefix("usb:") else { throw ReaderSelectionError.invalidSelector(text) }
        do {
            self = .usb(try USBReaderSelector(parsing: text))
        } catch {
            throw ReaderSelectionError.invalidSelector(text)
        }
    }
}

/// A reader that cannot be found or opened.
enum ReaderSelectionError: Error, CustomStringConvertible {
    case invalidSelector(String)
    case noReader(String)

    var description: String {
        switch self {
        case .invalidSelector(let text):
            "invalid reader selector '\(text)'; use usb, usb:VVVV:PPPP (hex), usb:BUS:DEV, usb:serial=XYZ, or sim[:CARD][,option=value...]"
        case .noReader(let selector):
            "no reader matches '\(selector)' (is it plugged in? `cardctl --reader usb list` shows the USB CCID readers found)"
        }
    }
}
