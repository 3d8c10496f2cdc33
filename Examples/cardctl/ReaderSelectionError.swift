/// A selector that parsed but names no reader that is there.
enum ReaderSelectionError: Error, CustomStringConvertible {
    case noReader(String)

    var description: String {
        switch self {
        case .noReader(let selector):
            "no reader matches '\(selector)' (is it plugged in? `cardctl --reader usb list` shows the USB CCID readers found)"
        }
    }
}
