import CardFlow
import CardFlowVPCDProtocol
import Logging

/// The card on any CardFlow ``/CardFlow/Reader`` as the card side of the vpcd protocol: give it to a
/// ``/CardFlowVPCDProtocol/VPCDCardExporter`` and a remote pcscd with vsmartcard's `vpcd` driver (or any vpcd reader
/// side) uses the card — a USB reader's card, a PC/SC reader's, a simulated DESFire or TON card.
///
/// vpcd's power on and reset power-cycle the card (opening a CardFlow session on the reader when
/// there is none, bounded by `policy`'s connect timeout), the ATR request opens one when needed,
/// and power off closes it. APDUs go through the session as they
/// come (no 61xx/6Cxx handling: that is the remote PC/SC stack's business). Failures are logged
/// and answered by the exporter with `6F 00`.
///
/// ```swift
/// let exporter = VPCDCardExporter(card: ReaderVPCDCard(reader: reader), host: "10.0.0.5", port: 35963)
/// await exporter.run()   // until cancelled; reconnects with backoff
/// ```
public actor ReaderVPCDCard: VPCDCard {
    public nonisolated let reader: Reader
    private let policy: SessionPolicy
    private let logger: Logger
    private var session: CardSession?

    public init(
        reader: Reader, policy: SessionPolicy = .default, logger: Logger = Logger(label: "cardflow.vpcd.export")
    ) {
        self.reader = reader
        self.policy = policy
        self.logger = logger
    }

    /// vpcd's power on (`01`) is an activation: a card that was already powered is power-cycled,
    /// so it starts from its activation state (a DESFire at the PICC level, no session, no
    /// selected application) as a card the reader switched on does, not where the previous
    /// client left it.
    public func powerOn() async {
        if let session, !session.isClosed {
            await reset()
            return
        }
        _ = try? await openSession()
    }

    public func powerOff() async {
        await session?.close()
        session = nil
    }

    public func reset() async {
        guard let session else {
            _ = try? await openSession()
            return
        }
        do {
            try await session.reconnect()
        } catch {
            logger.warning("reset failed; the next command opens a new session", metadata: ["error": "\(error)"])
            await powerOff()
        }
    }

    public func atr() async -> [UInt8] {
        guard let session = try? await openSession() else { return [] }
        return await session.identity.atr
    }

    public func transmit(_ apdu: [UInt8]) async throws -> [UInt8] {
        let command = try CommandAPDU(bytes: apdu)
        let session = try await openSession()
        do {
            let response = try await session.transmit(command)
            return response.data + [response.sw1, response.sw2]
        } catch let error where error.meansCardLost {
            // The card left: the remote side will see a mute card; the next command starts over.
            await powerOff()
            throw error
        }
    }

    /// The open session, or a new one (waiting for the card up to the policy's connect timeout).
    private func openSession() async throws -> CardSession {
        if let session, !session.isClosed { return session }
        do {
            let opened = try await reader.connect(policy: policy)
            session = opened
            return opened
        } catch {
            logger.warning(
                "no card session on the reader", metadata: ["reader": "\(reader.info.id)", "error": "\(error)"])
            throw error
        }
    }
}
