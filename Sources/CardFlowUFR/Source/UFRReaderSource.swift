import CardFlow
import Logging

/// Digital Logic uFR readers as a ``/CardFlow/ReaderSource``: `ufr:tcp:HOST[:PORT]` and
/// `ufr:udp:HOST[:PORT]` reach a uFR Nano Online (UART1 on port 8881 by default),
/// `ufr:serial:PATH[,baud=N]` a reader on a serial device (a USB reader bound to `ftdi_sio`,
/// an RS232 model), `ufr:usb[:SERIAL]` a USB reader through its FTDI chip in user space
/// (libftdi1, ``UFRFTDILink``). Opening asks the reader who it is, so a selector that names no uFR reader
/// fails at once with a ``UFRError``; the reader's id is `ufr:` and the endpoint.
///
/// ```swift
/// let sources: [any ReaderSource] = [UFRReaderSource()]
/// let opened = try await ReaderSelector(parsing: "ufr:tcp:192.168.1.5", sources: sources)
///     .open(options: ReaderSourceOptions(logger: logger))
/// ```
public struct UFRReaderSource: ReaderSource {
    public init() {}

    public var scheme: String { "ufr" }

    public var forms: [String] {
        [
            "ufr:tcp:HOST[:PORT]", "ufr:udp:HOST[:PORT]", "ufr:serial:PATH[,baud=N]",
            "ufr:usb[:SERIAL][,rts=low|high|off]",
        ]
    }

    public func check(_ selector: String) throws {
        _ = try UFREndpoint(selector: selector)
    }

    public func accepts(_ info: ReaderInfo, selector: String) -> Bool {
        guard let endpoint = try? UFREndpoint(selector: selector) else { return false }
        return info.backend == scheme && info.id == "ufr:\(endpoint)"
    }

    public func open(_ selector: String, options: ReaderSourceOptions) async throws -> OpenedReaders {
        let endpoint = try UFREndpoint(selector: selector)
        let settings = options.backendSettings[UFRSourceSettings.self] ?? UFRSourceSettings()
        var timing = settings.timing
        if let readTimeout = options.readTimeout { timing.replyTimeout = readTimeout }
        let link = try await endpoint.openLink(logger: options.logger)
        let connection = UFRConnection(link: link, timing: timing, logger: options.logger)
        let device = UFRReaderDevice(
            connection: connection, cardTimeoutMilliseconds: settings.cardTimeoutMilliseconds, logger: options.logger)
        let identity: UFRReaderIdentity
        do {
            identity = try await device.identify()
        } catch {
            await connection.close()
            throw error
        }
        options.logger.debug("uFR reader opened", metadata: ["endpoint": "\(endpoint)", "reader": "\(identity)"])
        let reader = Reader(
            info: UFRReaderDriver.info(endpoint: "\(endpoint)", identity: identity),
            driver: UFRReaderDriver(device: device), logger: options.readerLogger)
        return OpenedReaders(readers: [reader], close: { await connection.close() })
    }
}

extension UFRSelectorError: CategorizedError {
    /// A selector that does not parse.
    public var category: ErrorCategory { .usage }
}

extension UFRFrameError: CategorizedError {
    /// Bytes from the reader, or a command too long to frame: the reader.
    public var category: ErrorCategory { .reader }
}
