/// A change in the set of connected CCID readers, from ``LibUSBContext/readerEvents(pollingInterval:forcePolling:)``.
public enum USBReaderEvent: Sendable, Hashable {
    /// A reader is available: sent for each reader present when the stream starts, then for each
    /// one plugged in. A composite device sends one event per CCID interface.
    case arrived(USBReaderDescription)
    /// The device at this bus number and address, which had sent ``arrived(_:)``, was unplugged
    /// (once per device, also for composite devices).
    case left(bus: UInt8, address: UInt8)
}
