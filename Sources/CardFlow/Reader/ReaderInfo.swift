/// Identity and capabilities of a reader, as listed by `cardctl list`, in terms every backend
/// can give. What only one backend knows (a CCID class descriptor, a PC/SC reader's features)
/// stays with that backend's driver; ``details`` carries it as text for listings.
public struct ReaderInfo: Sendable, Hashable {
    /// Stable within a process, and prefixed by the backend: "usb:1:4:0", "sim:0",
    /// "vpcd:127.0.0.1:35963", "pcsc:Gemalto PC Twin Reader 00 00".
    public var id: String
    /// The reader's name for people.
    public var name: String
    /// The backend that drives it: "usb", "sim", "vpcd", "pcsc", …
    public var backend: String
    /// USB vendor and product id, where the reader is a USB device the backend can see.
    public var vendorID: UInt16?
    public var productID: UInt16?
    /// The reader's serial number, where it has one the backend can read (USB iSerialNumber).
    public var serialNumber: String?
    /// What the reader can do.
    public var capabilities: ReaderCapabilities
    /// Backend-specific facts for listings (for a CCID reader: exchange level, maximum message
    /// length, protocols, …), by name.
    public var details: [String: String]

    public init(
        id: String, name: String, backend: String, vendorID: UInt16? = nil, productID: UInt16? = nil,
        serialNumber: String? = nil, capabilities: ReaderCapabilities = ReaderCapabilities(),
        details: [String: String] = [:]
    ) {
        self.id = id
        self.name = name
        self.backend = backend
        self.vendorID = vendorID
        self.productID = productID
        self.serialNumber = serialNumber
        self.capabilities = capabilities
        self.details = details
    }
}

/// What a reader can do, as far as its backend can tell.
public struct ReaderCapabilities: Sendable, Hashable {
    /// The longest command APDU the reader carries (261 bytes for short APDUs only, up to
    /// 65,544 with extended lengths).
    public var maximumCommandLength: Int
    /// The contact protocols the reader runs (empty: not known, or a contactless-only reader).
    public var protocols: Set<CardProtocol>
    /// Whether the reader announces card arrival and removal (otherwise presence is polled).
    public var announcesPresence: Bool
    /// Whether the reader itself answers PC/SC part 3 GET DATA (`FF CA`) with the card's UID, as
    /// CCID and PC/SC readers do for contactless cards. When false (a network reader, whose
    /// "reader" is the remote card itself), sessions identify the card by its ATR and never
    /// send `FF CA` to it: a card would take it for its own GET DATA.
    public var readsCardUID: Bool
    /// How long a program should wait for a card on this reader when its user set no wait:
    /// `nil` for readers whose card is put there by hand (fail at once, or wait as asked); a
    /// time for a listening network reader, whose card side connects on its own shortly after
    /// the program starts (vpcd: 30 s).
    public var defaultCardWait: Duration?

    public init(
        maximumCommandLength: Int = 261, protocols: Set<CardProtocol> = [], announcesPresence: Bool = false,
        readsCardUID: Bool = true, defaultCardWait: Duration? = nil
    ) {
        self.maximumCommandLength = maximumCommandLength
        self.protocols = protocols
        self.announcesPresence = announcesPresence
        self.readsCardUID = readsCardUID
        self.defaultCardWait = defaultCardWait
    }

    /// Whether command APDUs with extended lengths fit.
    public var extendedLengths: Bool { maximumCommandLength > 261 }
}

/// Whether a card is on the reader.
public enum CardPresence: Sendable, Hashable {
    case absent
    case present
}
