/// One interface (its first alternate setting) of a USB configuration, as far as CCID discovery
/// needs it.
public struct USBInterfaceLayout: Sendable, Hashable {
    /// bInterfaceNumber.
    public var number: UInt8
    /// bAlternateSetting.
    public var alternateSetting: UInt8
    /// bInterfaceClass: 0x0B for smart card interfaces, 0xFF for vendor-specific ones.
    public var interfaceClass: UInt8
    /// bInterfaceSubClass.
    public var interfaceSubclass: UInt8
    /// bInterfaceProtocol: 0 for CCID, 1 and 2 for the ICCD variants.
    public var interfaceProtocol: UInt8
    /// iInterface: index of the interface's name string, 0 when it has none.
    public var nameIndex: UInt8
    /// Class-specific descriptors after the interface descriptor; the CCID class descriptor
    /// normally lives here.
    public var extra: [UInt8]
    /// The endpoints, in descriptor order.
    public var endpoints: [USBEndpointLayout]

    public init(
        number: UInt8, alternateSetting: UInt8 = 0, interfaceClass: UInt8, interfaceSubclass: UInt8 = 0,
        interfaceProtocol: UInt8 = 0, nameIndex: UInt8 = 0, extra: [UInt8] = [],
        endpoints: [USBEndpointLayout]
    ) {
        self.number = number
        self.alternateSetting = alternateSetting
        self.interfaceClass = interfaceClass
        self.interfaceSubclass = interfaceSubclass
        self.interfaceProtocol = interfaceProtocol
        self.nameIndex = nameIndex
        self.extra = extra
        self.endpoints = endpoints
    }
}
