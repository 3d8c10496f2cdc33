/// A CCID function found in a USB configuration: its interface, class descriptor and pipes.
///
/// A composite reader (ACR1252U PICC + SAM, OMNIKEY 5422 contactless + contact) has one per
/// CCID interface; each is driven as a reader of its own.
public struct USBCCIDInterface: Sendable, Hashable {
    /// bInterfaceNumber (what is claimed, and wIndex of class requests).
    public var number: UInt8
    /// bAlternateSetting of the interface descriptor the function was found in.
    public var alternateSetting: UInt8
    /// 0x0B, or 0xFF for vendor-class readers that carry a CCID descriptor anyway.
    public var interfaceClass: UInt8
    /// bInterfaceProtocol (0 = CCID).
    public var interfaceProtocol: UInt8
    /// iInterface: index of the interface's name string, 0 when it has none.
    public var nameIndex: UInt8
    /// The parsed CCID class descriptor.
    public var descriptor: CCIDClassDescriptor
    /// The pipes.
    public var endpoints: USBCCIDEndpoints

    public init(
        number: UInt8, alternateSetting: UInt8 = 0, interfaceClass: UInt8 = 0x0B, interfaceProtocol: UInt8 = 0,
        nameIndex: UInt8 = 0, descriptor: CCIDClassDescriptor, endpoints: USBCCIDEndpoints
    ) {
        self.number = number
        self.alternateSetting = alternateSetting
        self.interfaceClass = interfaceClass
        self.interfaceProtocol = interfaceProtocol
        self.nameIndex = nameIndex
        self.descriptor = descriptor
        self.endpoints = endpoints
    }
}
