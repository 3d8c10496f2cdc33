/// Why a reader selector could not be parsed, or found no reader.
public enum USBReaderSelectorError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The text does not start with `usb`.
    case notAUSBSelector(String)
    /// The text starts with `usb:` but does not follow one of the forms.
    case malformed(String, reason: String)
    /// No connected reader matches.
    case noMatchingReader(USBReaderSelector, readersFound: Int)

    public var description: String {
        switch self {
        case .notAUSBSelector(let text):
            "'\(text)' is not a USB reader selector; use usb, usb:VVVV:PPPP (hex), usb:BUS:DEV or usb:serial=XYZ"
        case .malformed(let text, let reason):
            "invalid USB reader selector '\(text)': \(reason)"
        case .noMatchingReader(let selector, let count):
            count == 0
                ? "no USB CCID reader found (selector \(selector))"
                : "none of the \(count) USB CCID reader(s) found matches \(selector)"
        }
    }
}
