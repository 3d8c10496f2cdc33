/// Where a USB device sits: bus number and device address. The address changes on every
/// replug, so it names one plug-in of a device, not the device.
public struct USBDeviceAddress: Sendable, Hashable, CustomStringConvertible {
    public var bus: UInt8
    public var address: UInt8

    public init(bus: UInt8, address: UInt8) {
        self.bus = bus
        self.address = address
    }

    public var description: String { "\(bus):\(address)" }
}
