/// An error pcscd or libccid logged, sorted into the kinds a caller can tell apart.
public struct TranscriptFailure: Sendable, Hashable, CustomStringConvertible {
    /// What kind of failure the log line reports.
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        /// libccid's "Card absent or mute" (bError ICC_MUTE).
        case cardAbsentOrMute
        /// A bulk-IN read timed out (`ReadUSB() read failed … LIBUSB_ERROR_TIMEOUT`).
        case readTimeout
        /// A bulk-OUT write timed out (`WriteUSB() write failed … LIBUSB_ERROR_TIMEOUT`).
        case writeTimeout
        /// The reader refused the command: "Protocol not supported" (bError 0xF6).
        case protocolNotSupported
        /// The device went away or the USB link failed (`LIBUSB_ERROR_IO`, `LIBUSB_ERROR_NO_DEVICE`).
        case usbFailure
        /// pcscd's generic transmit failure ("Card not transacted").
        case notTransacted
    }

    /// What kind of failure it is.
    public let kind: Kind
    /// The log line's text after the timestamp, for reports.
    public let text: String

    /// A failure of `kind`, logged as `text`.
    public init(kind: Kind, text: String) {
        self.kind = kind
        self.text = text
    }

    public var description: String { "\(kind.rawValue): \(text)" }
}
