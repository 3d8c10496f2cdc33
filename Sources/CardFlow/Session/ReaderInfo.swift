import CCID

/// Identity and capabilities of a reader, as listed by `cardctl list`.
public struct ReaderInfo: Sendable, Hashable {
    /// Stable within a process: e.g. "usb:001:004:0" or "sim:0".
    public var id: String
    public var name: String
    public var vendorID: UInt16
    public var productID: UInt16
    public var descriptor: CCIDClassDescriptor

    public init(id: String, name: String, vendorID: UInt16, productID: UInt16, descriptor: CCIDClassDescriptor) {
        self.id = id
        self.name = name
        self.vendorID = vendorID
        self.productID = productID
        self.descriptor = descriptor
    }

    public var exchangeLevel: CCIDExchangeLevel { descriptor.exchangeLevel }
}

/// Whether a card is on the reader.
public enum CardPresence: Sendable, Hashable {
    case absent
    case present
}
