/// Bounds on what a relay service may ask of the card.
public struct RelayLimits: Sendable, Hashable {
    /// Largest command APDU accepted from the service, in bytes (header, Lc, data and Le).
    public var maxAPDUSize: Int = 4096
    /// Most APDUs one sync may send to the card (resends after a card reset included).
    public var maxAPDUs: Int = 2000
    /// How long the service may stay silent while the relay waits for its next message.
    public var idleTimeout: Duration = .seconds(30)
    /// Most service messages waiting for the card (a service may send APDUs ahead); one more is
    /// a protocol violation, so a service that floods cannot grow the client's memory.
    public var maxQueuedMessages: Int = 256

    public init(
        maxAPDUSize: Int = 4096, maxAPDUs: Int = 2000, idleTimeout: Duration = .seconds(30),
        maxQueuedMessages: Int = 256
    ) {
        self.maxAPDUSize = maxAPDUSize
        self.maxAPDUs = maxAPDUs
        self.idleTimeout = idleTimeout
        self.maxQueuedMessages = max(1, maxQueuedMessages)
    }

    /// Largest WebSocket message accepted: an APDU as hex plus the JSON envelope.
    var maxMessageSize: Int { maxAPDUSize * 2 + 1024 }
}
