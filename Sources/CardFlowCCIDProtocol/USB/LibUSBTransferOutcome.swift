import CCardFlowLibUSB

/// How one ``LibUSBTransfer`` ended.
enum LibUSBTransferOutcome: Sendable {
    /// libusb ran the transfer and called back with this status. `data` holds the bytes received
    /// (IN transfers; for control transfers the data stage only), `actualLength` the bytes moved.
    case completed(status: libusb_transfer_status, actualLength: Int, data: [UInt8])
    /// `libusb_submit_transfer` refused it with this libusb error code.
    case submissionFailed(code: Int32)
    /// The task was cancelled before the transfer was submitted; it never reached the device.
    case cancelledBeforeSubmission
}
