import CardFlowSimulator

/// The simulator's reader as a USB device: its configuration gives the identity, its own
/// USB-facing methods (``/CardFlowSimulator/VirtualCCIDReader/receiveBulkOut(_:)`` …) the traffic.
extension VirtualCCIDReader: EmulatedCCIDDeviceModel {
    public nonisolated var usbIdentity: EmulatedUSBIdentity {
        EmulatedUSBIdentity(
            vendorID: configuration.vendorID, productID: configuration.productID, bcdDevice: configuration.bcdDevice,
            manufacturer: configuration.manufacturer, product: configuration.name,
            serialNumber: configuration.serialNumber, classDescriptor: configuration.descriptor.encoded(),
            hasInterruptEndpoint: configuration.hasInterruptEndpoint)
    }
}
