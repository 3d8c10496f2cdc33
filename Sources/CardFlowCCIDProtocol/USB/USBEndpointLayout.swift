/// One endpoint of a USB interface, as its endpoint descriptor states it.
///
/// Built from libusb's parsed configuration descriptor, or written by hand in tests.
public struct USBEndpointLayout: Sendable, Hashable {
    /// The USB transfer type, bits 0-1 of bmAttributes.
    public enum TransferType: UInt8, Sendable, Hashable {
        case control = 0
        case isochronous = 1
        case bulk = 2
        case interrupt = 3
    }

    /// bEndpointAddress: endpoint number in bits 0-3, direction (1 = IN) in bit 7.
    public var address: UInt8
    /// bmAttributes.
    public var attributes: UInt8
    /// wMaxPacketSize, bits 0-10 (the packet size; high-bandwidth multipliers are masked off).
    public var maxPacketSize: Int
    /// bInterval.
    public var interval: UInt8
    /// Class- or vendor-specific descriptors that follow the endpoint descriptor.
    public var extra: [UInt8]

    public init(address: UInt8, attributes: UInt8, maxPacketSize: Int, interval: UInt8 = 0, extra: [UInt8] = []) {
        self.address = address
        self.attributes = attributes
        self.maxPacketSize = maxPacketSize
        self.interval = interval
        self.extra = extra
    }

    /// A bulk endpoint. `address` carries the direction bit (0x80 = IN).
    public static func bulk(_ address: UInt8, maxPacketSize: Int = 64, extra: [UInt8] = []) -> USBEndpointLayout {
        USBEndpointLayout(
            address: address, attributes: TransferType.bulk.rawValue, maxPacketSize: maxPacketSize, extra: extra)
    }

    /// An interrupt endpoint. `address` carries the direction bit (0x80 = IN).
    public static func interrupt(
        _ address: UInt8, maxPacketSize: Int = 8, interval: UInt8 = 255,
        extra: [UInt8] = []
    ) -> USBEndpointLayout {
        USBEndpointLayout(
            address: address, attributes: TransferType.interrupt.rawValue, maxPacketSize: maxPacketSize,
            interval: interval, extra: extra)
    }

    /// The transfer type from bmAttributes.
    public var transferType: TransferType { TransferType(rawValue: attributes & 0x03)! }
    /// True for device-to-host endpoints.
    public var isIn: Bool { address & 0x80 != 0 }
}
