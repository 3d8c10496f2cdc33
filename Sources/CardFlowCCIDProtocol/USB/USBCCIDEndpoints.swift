/// The pipes of one CCID interface: bulk-OUT for commands, bulk-IN for responses and, when the
/// reader has one, interrupt-IN for card events.
public struct USBCCIDEndpoints: Sendable, Hashable {
    /// bEndpointAddress of the bulk-OUT endpoint.
    public var bulkOut: UInt8
    public var bulkOutMaxPacketSize: Int
    /// bEndpointAddress of the bulk-IN endpoint (bit 7 set).
    public var bulkIn: UInt8
    public var bulkInMaxPacketSize: Int
    /// bEndpointAddress of the interrupt-IN endpoint, nil when the reader has none (it must then
    /// be polled with GetSlotStatus to notice cards).
    public var interruptIn: UInt8?
    public var interruptInMaxPacketSize: Int?

    public init(
        bulkOut: UInt8, bulkOutMaxPacketSize: Int, bulkIn: UInt8, bulkInMaxPacketSize: Int,
        interruptIn: UInt8? = nil, interruptInMaxPacketSize: Int? = nil
    ) {
        self.bulkOut = bulkOut
        self.bulkOutMaxPacketSize = bulkOutMaxPacketSize
        self.bulkIn = bulkIn
        self.bulkInMaxPacketSize = bulkInMaxPacketSize
        self.interruptIn = interruptIn
        self.interruptInMaxPacketSize = interruptInMaxPacketSize
    }

    /// Picks the first bulk-OUT, bulk-IN and interrupt-IN endpoints, the way the pcsc-lite CCID
    /// driver does (`get_end_points()`); nil when either bulk pipe is missing.
    public init?(endpoints: [USBEndpointLayout]) {
        guard let out = endpoints.first(where: { $0.transferType == .bulk && !$0.isIn }),
            let `in` = endpoints.first(where: { $0.transferType == .bulk && $0.isIn })
        else { return nil }
        let interrupt = endpoints.first(where: { $0.transferType == .interrupt && $0.isIn })
        self.init(
            bulkOut: out.address, bulkOutMaxPacketSize: out.maxPacketSize,
            bulkIn: `in`.address, bulkInMaxPacketSize: `in`.maxPacketSize,
            interruptIn: interrupt?.address, interruptInMaxPacketSize: interrupt?.maxPacketSize)
    }
}
