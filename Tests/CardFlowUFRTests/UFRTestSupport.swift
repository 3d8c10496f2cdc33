import CardFlow
import CardFlowSimulatorCards
import CardFlowSimulatorUFR
import CardFlowUFR
import Logging

/// A simulated Nano Online on loopback and the backend opened on it.
enum UFRTestSupport {
    /// Short waits, so every time-out a test provokes ends quickly.
    static let timing = UFRTiming(
        replyTimeout: .milliseconds(600), datagramAttemptTimeout: .milliseconds(150), datagramAttempts: 4)

    static let logger = Logger(label: "cardflow.ufr.test")

    /// The two network links of the Online.
    enum Transport: String, CaseIterable, Sendable, CustomStringConvertible {
        case tcp
        case udp

        var description: String { rawValue }
    }

    static func online(card: (any VirtualCard)? = DESFireCard(seed: 7)) async throws -> SimulatedUFROnline {
        try await SimulatedUFROnline.start(reader: SimulatedUFRReader(card: card))
    }

    static func selector(_ online: SimulatedUFROnline, _ transport: Transport) -> String {
        let port = transport == .tcp ? online.tcpPort : online.udpPort
        return "ufr:\(transport):127.0.0.1:\(port)"
    }

    /// The backend's reader on the Online, through the reader-source plug.
    static func open(_ online: SimulatedUFROnline, _ transport: Transport) async throws -> OpenedReaders {
        var options = ReaderSourceOptions(logger: logger)
        options.backendSettings[UFRSourceSettings.self] = UFRSourceSettings(timing: timing)
        return try await ReaderSelector(parsing: selector(online, transport), sources: [UFRReaderSource()])
            .open(options: options)
    }

    /// A device straight on a connection (for tests below the Reader).
    static func device(_ online: SimulatedUFROnline, _ transport: Transport) async throws -> UFRReaderDevice {
        let link =
            transport == .tcp
            ? try await UFRNIOLink.tcp(host: "127.0.0.1", port: online.tcpPort)
            : try await UFRNIOLink.udp(host: "127.0.0.1", port: online.udpPort)
        return UFRReaderDevice(
            connection: UFRConnection(link: link, timing: timing, logger: logger), logger: logger)
    }

    /// DESFire GetVersion, the first of its three frames.
    static let getVersion: [UInt8] = [0x90, 0x60, 0x00, 0x00, 0x00]
}
