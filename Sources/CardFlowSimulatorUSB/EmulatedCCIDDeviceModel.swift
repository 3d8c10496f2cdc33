import CardFlowCCIDProtocol

/// What a USB CCID device on the ``USBTestbed`` does, seen from the device side: a
/// ``/CardFlowSimulator/VirtualCCIDReader`` (a reader with simulated cards) or a
/// ``ReplayedCCIDDevice`` (a reader that is a pcscd + libccid recording).
///
/// ``EmulatedUSBDevice`` moves the traffic: each bulk-OUT message the host sends goes to
/// ``receiveBulkOut(_:)`` in order, the messages ``nextBulkIn(maxLength:timeout:)`` and
/// ``nextInterrupt(maxLength:timeout:)`` return complete the host's IN transfers, class control
/// requests go to ``control(_:)``. Throwing `noDevice` from any of them unplugs the device.
public protocol EmulatedCCIDDeviceModel: Sendable {
    /// The device's USB identity and CCID interface, fixed for its life.
    var usbIdentity: EmulatedUSBIdentity { get }

    /// Takes one bulk-OUT message (a CCID command) from the host.
    func receiveBulkOut(_ bytes: [UInt8]) async throws(USBTransportError)

    /// The next bulk-IN message for the host. Waits at most `timeout` (then `timeout`); a
    /// cancelled wait throws `cancelled`; `stall` halts the endpoint until the host clears it.
    func nextBulkIn(maxLength: Int, timeout: Duration) async throws(USBTransportError) -> [UInt8]

    /// The next interrupt-IN message (slot change, hardware error); like ``nextBulkIn(maxLength:timeout:)``.
    func nextInterrupt(maxLength: Int, timeout: Duration) async throws(USBTransportError) -> [UInt8]

    /// Answers a class control request (ABORT, GET_CLOCK_FREQUENCIES, GET_DATA_RATES); a thrown
    /// error stalls it.
    func control(_ request: USBControlRequest) async throws(USBTransportError) -> [UInt8]

    /// The cable is pulled: later calls fail with `noDevice`.
    func unplug() async
}

/// A USB CCID device's identity: what `lsusb -v` shows of it.
public struct EmulatedUSBIdentity: Sendable, Hashable {
    public var vendorID: UInt16
    public var productID: UInt16
    /// The device release number (`bcdDevice`).
    public var bcdDevice: UInt16
    public var manufacturer: String
    public var product: String
    public var serialNumber: String?
    /// The CCID class descriptor (54 bytes) of the device's one CCID interface.
    public var classDescriptor: [UInt8]
    /// Whether the interface has an interrupt-IN endpoint (card and hardware events).
    public var hasInterruptEndpoint: Bool

    public init(
        vendorID: UInt16, productID: UInt16, bcdDevice: UInt16 = 0x0100, manufacturer: String, product: String,
        serialNumber: String? = nil, classDescriptor: [UInt8], hasInterruptEndpoint: Bool
    ) {
        self.vendorID = vendorID
        self.productID = productID
        self.bcdDevice = bcdDevice
        self.manufacturer = manufacturer
        self.product = product
        self.serialNumber = serialNumber
        self.classDescriptor = classDescriptor
        self.hasInterruptEndpoint = hasInterruptEndpoint
    }
}
