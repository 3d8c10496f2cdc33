/// The machine a measurement ran on: enough to tell two results apart when they differ.
public struct BenchMachine: Sendable, Hashable, Codable {
    public var hostName: String
    /// `uname` system, release and machine, e.g. "Linux 6.1.0-18-amd64 x86_64".
    public var operatingSystem: String
    /// The CPU model from /proc/cpuinfo, where there is one.
    public var cpuModel: String?
    /// Online processors.
    public var processorCount: Int

    public init(hostName: String, operatingSystem: String, cpuModel: String?, processorCount: Int) {
        self.hostName = hostName
        self.operatingSystem = operatingSystem
        self.cpuModel = cpuModel
        self.processorCount = processorCount
    }
}

/// The reader a measurement ran on, as every backend can tell it, plus what its driver
/// negotiated for the card.
public struct BenchReaderIdentity: Sendable, Hashable, Codable {
    /// CardFlow's id ("usb:1:4:0", "sim:0", "pcsc:…").
    public var id: String
    public var name: String
    /// "usb" (CardFlow's own CCID driver), "pcsc" (through pcscd), "vpcd", "sim".
    public var backend: String
    /// "VVVV:PPPP" in hex, where the backend sees a USB device.
    public var usbID: String?
    public var serialNumber: String?
    /// The reader's firmware version, where it tells (a CCID escape or bcdDevice).
    public var firmware: String?
    /// CCID exchange level (`shortAPDU`, `extendedAPDU`, `tpdu`, `character`), where CCID.
    public var exchangeLevel: String?
    /// The card protocol in use ("T=0", "T=1", "contactless"), where the backend tells.
    public var cardProtocol: String?
    /// The negotiated speed (e.g. CCID data rate in bit/s, PPS Fi/Di), where the backend tells.
    public var speed: String?
    /// Backend facts as listed by `cardctl list` (maximum message length, slots, …).
    public var details: [String: String]

    public init(
        id: String, name: String, backend: String, usbID: String? = nil, serialNumber: String? = nil,
        firmware: String? = nil, exchangeLevel: String? = nil, cardProtocol: String? = nil, speed: String? = nil,
        details: [String: String] = [:]
    ) {
        self.id = id
        self.name = name
        self.backend = backend
        self.usbID = usbID
        self.serialNumber = serialNumber
        self.firmware = firmware
        self.exchangeLevel = exchangeLevel
        self.cardProtocol = cardProtocol
        self.speed = speed
        self.details = details
    }
}

/// The card a measurement ran on.
public struct BenchCardIdentity: Sendable, Hashable, Codable {
    /// The ATR in hex.
    public var atr: String
    /// What CardFlow recognised from the ATR ("MIFARE DESFire", "ISO 14443-4 card", …), if anything.
    public var name: String?

    public init(atr: String, name: String?) {
        self.atr = atr
        self.name = name
    }
}
