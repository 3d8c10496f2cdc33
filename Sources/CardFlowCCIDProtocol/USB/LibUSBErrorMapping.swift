import CCardFlowLibUSB

/// Translates libusb's error codes and transfer statuses into ``USBTransportError``, with
/// messages that tell the user what to do about the common failures.
enum LibUSBErrorMapping {
    /// The symbolic name of a libusb error code, e.g. `LIBUSB_ERROR_BUSY`.
    static func name(_ code: Int32) -> String {
        String(cString: libusb_error_name(code))
    }

    /// The error for a failed synchronous libusb call (open, claim, submit…).
    ///
    /// - Parameters:
    ///   - operation: what was attempted, for the generic message ("claiming interface 0").
    ///   - endpoint: the pipe involved, for timeout/stall/overflow errors.
    static func transportError(
        _ code: Int32, operation: String, devicePath: String, interfaceNumber: UInt8? = nil,
        endpoint: String = "control", timeout: Duration = .zero
    ) -> USBTransportError {
        switch code {
        case LIBUSB_ERROR_BUSY.rawValue:
            return .busy(detail: busyMessage(devicePath: devicePath, interfaceNumber: interfaceNumber))
        case LIBUSB_ERROR_ACCESS.rawValue:
            return .accessDenied(detail: accessMessage(devicePath: devicePath))
        case LIBUSB_ERROR_NO_DEVICE.rawValue:
            return .noDevice
        case LIBUSB_ERROR_TIMEOUT.rawValue:
            return .timeout(endpoint: endpoint, after: timeout)
        case LIBUSB_ERROR_PIPE.rawValue:
            return .stall(endpoint: endpoint)
        case LIBUSB_ERROR_OVERFLOW.rawValue:
            return .overflow(endpoint: endpoint)
        default:
            return .io("\(operation) failed: \(name(code))")
        }
    }

    /// The error for an asynchronous transfer that did not complete (any status but
    /// `LIBUSB_TRANSFER_COMPLETED`).
    static func transportError(status: libusb_transfer_status, endpoint: String, timeout: Duration) -> USBTransportError
    {
        switch status {
        case LIBUSB_TRANSFER_TIMED_OUT: .timeout(endpoint: endpoint, after: timeout)
        case LIBUSB_TRANSFER_CANCELLED: .cancelled
        case LIBUSB_TRANSFER_STALL: .stall(endpoint: endpoint)
        case LIBUSB_TRANSFER_NO_DEVICE: .noDevice
        case LIBUSB_TRANSFER_OVERFLOW: .overflow(endpoint: endpoint)
        case LIBUSB_TRANSFER_ERROR: .io("\(endpoint) transfer failed (LIBUSB_TRANSFER_ERROR)")
        default: .io("\(endpoint) transfer ended with unknown status \(status.rawValue)")
        }
    }

    /// LIBUSB_ERROR_BUSY on claim: someone else holds the interface. pcscd keeps it claimed as
    /// long as it runs, and the kernel's pn533_usb binds the ACR122U; auto-detach cannot take an
    /// interface from another process ("usbfs" is not detachable).
    static func busyMessage(devicePath: String, interfaceNumber: UInt8?) -> String {
        let interface = interfaceNumber.map { "interface \($0) of \(devicePath)" } ?? devicePath
        return
            "\(interface) is claimed by another program — usually pcscd (stop it: systemctl stop pcscd.socket pcscd) "
            + "or the pn533_usb kernel driver (rmmod pn533_usb pn533 or blacklist it)"
    }

    /// LIBUSB_ERROR_ACCESS: the usbfs node is not writable for this user.
    static func accessMessage(devicePath: String) -> String {
        "no permission to open \(devicePath) — install a udev rule giving your user access (see Examples/cardd) or run as root"
    }

    /// A pipe's name for messages, e.g. "bulk-IN 0x82".
    static func endpointName(_ kind: String, _ address: UInt8) -> String {
        "\(kind) 0x\(hex2(address))"
    }
}
