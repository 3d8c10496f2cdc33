import CardFlow
import CardFlowVPCDProtocol
import Logging

/// A network reader over vsmartcard's vpcd protocol as a CardFlow ``/CardFlow/ReaderDriver``: CardFlow is
/// the reader, and the card is whatever connects to the ``/CardFlowVPCDProtocol/VPCDListener`` (vsmartcard's `vicc`,
/// the Android "Remote Smart Card Reader" app, a ``/CardFlowVPCDProtocol/VPCDCardExporter`` on another host). A
/// connection is a card arrival, its end a removal.
///
/// The protocol has no protocol selection: the card side runs whatever it runs, so a requested
/// ``/CardFlow/CardProtocol`` is not enforced. There is no reader in between to answer PC/SC part 3
/// GET DATA, so sessions identify the card by its ATR (``/CardFlow/ReaderCapabilities/readsCardUID``).
/// Presence is polled (a connection or disconnection is seen within
/// ``/CardFlow/SessionPolicy/presencePollInterval``): the listener's state is in memory, so a poll costs
/// no network traffic.
///
/// ```swift
/// let listener = try await VPCDListener.bind(port: 35963, logger: logger)
/// let reader = Reader(info: VPCDReaderDriver.info(for: listener), driver: VPCDReaderDriver(listener: listener))
/// // elsewhere: vicc -t iso7816 -H 127.0.0.1 -P 35963
/// let atr = try await reader.withSession { session in await session.identity.atr }
/// ```
public struct VPCDReaderDriver: ReaderDriver {
    public let listener: VPCDListener

    public init(listener: VPCDListener) {
        self.listener = listener
    }

    /// How long programs wait by default for a card side to connect to the listener.
    public static let defaultCardWait: Duration = .seconds(30)

    /// The reader identity of a listener: id `vpcd:HOST:PORT`, backend `vpcd`; a session waits
    /// ``defaultCardWait`` for the card side unless told otherwise.
    public static func info(for listener: VPCDListener) -> ReaderInfo {
        ReaderInfo(
            id: "vpcd:\(listener.host):\(listener.port)", name: "vpcd \(listener.host):\(listener.port)",
            backend: "vpcd",
            capabilities: ReaderCapabilities(
                maximumCommandLength: 65_535, // the largest vpcd message
                announcesPresence: false, readsCardUID: false, defaultCardWait: defaultCardWait),
            details: ["listening": "\(listener.host):\(listener.port)"])
    }

    public var unownedExecutor: UnownedSerialExecutor { listener.unownedExecutor }

    public func powerOn(protocol cardProtocol: CardProtocol?) async throws -> [UInt8] {
        try await listener.powerOn()
    }

    public func powerOff() async throws {
        do {
            try await listener.powerOff()
        } catch VPCDError.noCard, VPCDError.cardLost {
            // Nothing connected, nothing to power off.
        }
    }

    public func transmit(_ command: [UInt8]) async throws -> [UInt8] {
        try await listener.transmit(command)
    }

    public func presence() async throws -> CardPresence {
        await listener.currentCard == nil ? .absent : .present
    }

    public func nextPresenceNotice(timeout: Duration) async throws -> PresenceNotice {
        .unsupported
    }
}

extension Reader {
    /// A reader whose card is whatever connects to `listener`: ``VPCDReaderDriver`` with
    /// ``VPCDReaderDriver/info(for:)``.
    public init(vpcd listener: VPCDListener, logger: Logger = Logger(label: "cardflow.reader")) {
        self.init(
            info: VPCDReaderDriver.info(for: listener), driver: VPCDReaderDriver(listener: listener), logger: logger)
    }
}
