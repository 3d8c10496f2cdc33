import CCardFlowLibUSB
import Logging

/// Reads a device's string descriptors, best effort: the device is opened on the first request,
/// and anything that fails (no permission, a stalled request, no string) gives nil.
///
/// Strings are decoded from UTF-16 in the device's first language, not through libusb's ASCII
/// helper, so names keep their non-ASCII characters.
struct LibUSBStringReader {
    private let device: OpaquePointer
    private let logger: Logger
    private var handle: OpaquePointer?
    private var openAttempted = false
    private var languageID: UInt16?

    /// Timeout of one GET_DESCRIPTOR(STRING) request.
    private static let timeoutMilliseconds: UInt32 = 1000

    init(device: OpaquePointer, logger: Logger) {
        self.device = device
        self.logger = logger
    }

    /// The string at `index`, nil when the index is 0 or the string cannot be read.
    mutating func string(at index: UInt8) -> String? {
        guard index != 0, let handle = openIfNeeded(), let languageID else { return nil }
        guard let bytes = descriptor(handle, index: index, languageID: languageID), bytes.count >= 2 else { return nil }
        let units = stride(from: 0, to: bytes.count - 1, by: 2).map { UInt16(bytes[$0]) | UInt16(bytes[$0 + 1]) << 8 }
        let text = String(decoding: units, as: UTF16.self)
            .trimmed { $0.isWhitespace || $0 == "\u{0}" }
        return text.isEmpty ? nil : text
    }

    /// Closes the device if it was opened.
    mutating func close() {
        if let handle { libusb_close(handle) }
        handle = nil
    }

    private mutating func openIfNeeded() -> OpaquePointer? {
        if openAttempted { return handle }
        openAttempted = true
        var opened: OpaquePointer?
        let result = libusb_open(device, &opened)
        guard result == 0, let opened else {
            logger.debug(
                "cannot open the device to read its strings", metadata: ["error": "\(LibUSBErrorMapping.name(result))"])
            return nil
        }
        handle = opened
        // String descriptor 0 lists the supported language IDs; take the first.
        if let languages = descriptor(opened, index: 0, languageID: 0), languages.count >= 2 {
            languageID = UInt16(languages[0]) | UInt16(languages[1]) << 8
        }
        return opened
    }

    /// The payload of a string descriptor (after bLength and bDescriptorType).
    private func descriptor(_ handle: OpaquePointer, index: UInt8, languageID: UInt16) -> [UInt8]? {
        var buffer = [UInt8](repeating: 0, count: 255)
        let received = buffer.withUnsafeMutableBufferPointer { buffer in
            libusb_control_transfer(
                handle, UInt8(LIBUSB_ENDPOINT_IN.rawValue), UInt8(LIBUSB_REQUEST_GET_DESCRIPTOR.rawValue),
                UInt16(LIBUSB_DT_STRING.rawValue) << 8 | UInt16(index), languageID,
                buffer.baseAddress, UInt16(buffer.count), Self.timeoutMilliseconds)
        }
        guard received >= 2, buffer[1] == UInt8(LIBUSB_DT_STRING.rawValue) else { return nil }
        let length = min(Int(received), Int(buffer[0]))
        guard length >= 2 else { return nil }
        return Array(buffer[2..<length])
    }
}

extension String {
    fileprivate func trimmed(where isTrimmed: (Character) -> Bool) -> String {
        String(drop(while: isTrimmed).reversed().drop(while: isTrimmed).reversed())
    }
}
