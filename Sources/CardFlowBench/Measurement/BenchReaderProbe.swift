import CardFlow
import CardFlowCCID
import CardFlowCCIDProtocol
import CardFlowHex

/// What a measurement needs to know about a reader beyond its round trips: who it is (for the
/// result) and, where CardFlow's own CCID driver runs it, the driver's event counters (what
/// explains slow samples). Other backends do not expose such events.
public struct BenchReaderProbe: Sendable {
    public let reader: Reader
    private let ccid: CCIDReaderDriver?

    /// - Parameter reader: the reader measured.
    public init(reader: Reader) {
        self.reader = reader
        self.ccid = reader.ccid
    }

    /// Whether ``counters()`` gives the driver's events.
    public var hasCounters: Bool { ccid != nil }

    /// The CCID driver's counters now (nil when the reader is not on CardFlow's CCID driver).
    public func counters() async -> CCIDDriverCounters? {
        guard let ccid else { return nil }
        return await ccid.driver.counters
    }

    /// The reader's identity, with what its driver negotiated for the card of `session`.
    ///
    /// - Parameter session: the session the measurement runs in, for the card's protocol.
    /// - Returns: the identity to put in results.
    public func identity(session: CardSession?) async -> BenchReaderIdentity {
        let info = reader.info
        var identity = BenchReaderIdentity(
            id: info.id, name: info.name, backend: info.backend,
            usbID: info.vendorID.flatMap { vendor in info.productID.map { Self.usbID(vendor, $0) } },
            serialNumber: info.serialNumber, firmware: info.details["bcdDevice"] ?? info.details["firmware"],
            exchangeLevel: info.details["exchangeLevel"], details: info.details)
        if let ccid {
            let descriptor = ccid.driver.descriptor
            if let active = await ccid.driver.activeProtocol(slot: ccid.slot) {
                identity.cardProtocol = active.description
            } else if session != nil {
                // A contactless reader at APDU level reports no T=0/T=1 of its own.
                identity.cardProtocol = "APDU exchange (reader-managed protocol)"
            }
            identity.speed =
                "default \(descriptor.dataRate) bit/s, max \(descriptor.maxDataRate) bit/s, clock \(descriptor.defaultClock) kHz"
        } else if let protocols = info.details["protocol"] {
            identity.cardProtocol = protocols
        }
        return identity
    }

    /// The card of a session as results name it.
    ///
    /// - Parameter session: the session on the card.
    /// - Returns: the ATR and what CardFlow recognises from it.
    public static func card(of session: CardSession) async -> BenchCardIdentity {
        let atr = await session.identity.atr
        let identification = ATRIdentification(atr: atr)
        return BenchCardIdentity(atr: atr.hexString, name: identification.name ?? identification.kind.description)
    }

    static func usbID(_ vendor: UInt16, _ product: UInt16) -> String {
        func hex4(_ value: UInt16) -> String {
            let text = String(value, radix: 16)
            return String(repeating: "0", count: 4 - text.count) + text
        }
        return hex4(vendor) + ":" + hex4(product)
    }
}
