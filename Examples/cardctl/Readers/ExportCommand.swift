import ArgumentParser
import CardFlow
import CardFlowVPCD
import CardFlowVPCDProtocol
import Foundation

/// `cardctl export`: the card on any reader CardFlow can open, served to a vpcd reader side (a
/// pcscd with vsmartcard's `vpcd` driver, here or on another host), until interrupted.
struct ExportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract:
            "Serve the reader's card to a vpcd reader (pcscd + vsmartcard-vpcd) until stopped (Ctrl-C, SIGTERM, SIGHUP).",
        discussion: """
            PC/SC programs on the vpcd host then use the card: a USB reader's card, a PC/SC reader's, or a \
            simulated one (--reader sim:desfire). The exporter reconnects with backoff while the vpcd side is away. \
            The vpcd protocol has no authentication or encryption: cross networks through an SSH or WireGuard tunnel. \
            Ctrl-C, SIGTERM (kill, timeout, systemd) and SIGHUP all stop it the same way: a simulated card's \
            state=PATH file is saved before cardctl exits.
            """)

    @OptionGroup(title: "Global Options") var global: GlobalOptions

    @Option(name: .customLong("to"), help: "The vpcd reader side, HOST:PORT (vpcd's first slot listens on 35963).")
    var destination = "127.0.0.1:35963"

    func validate() throws {
        _ = try Self.parse(destination)
    }

    static func parse(_ text: String) throws -> (host: String, port: Int) {
        guard let colon = text.lastIndex(of: ":"), let port = Int(text[text.index(after: colon)...]),
            (1...65_535).contains(port), colon != text.startIndex
        else {
            throw ValidationError("--to takes HOST:PORT with a port from 1 to 65535, not '\(text.prefix(100))'")
        }
        return (String(text[..<colon]), port)
    }

    func run() async throws {
        // Closing the reader saves a simulated card's state= file: allow it more than the default grace.
        InterruptGrace.extend()
        let logger = CommandLogging.logger(trace: global.trace)
        let (host, port) = try Self.parse(destination)
        let connection = try await ReaderConnection.open(global, logger: logger)
        let reader = try connection.primary
        let card = ReaderVPCDCard(reader: reader, policy: global.policy(for: reader), logger: logger)
        let exporter = VPCDCardExporter(card: card, host: host, port: port, logger: logger)
        Output.standardError(
            "exporting the card on \(reader.info.name) to vpcd at \(host):\(port); Ctrl-C or SIGTERM stops")
        await exporter.run()
        await card.powerOff()
        try await connection.close()
        try Task.checkCancellation()
    }
}
