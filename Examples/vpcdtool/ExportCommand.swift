import ArgumentParser
import CardFlowVPCDProtocol

extension CardKind: ExpressibleByArgument {}

/// `vpcdtool export`: the card side, connecting to pcscd's vpcd driver (or any vpcd listener).
struct ExportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Export a simulated card to a vpcd reader (pcscd with vsmartcard's vpcd driver); runs until killed.")

    @Option(help: "The vpcd reader's host.") var host = "127.0.0.1"
    @Option(help: "The vpcd reader's port (35963 is its first slot).") var port = 35963
    @Option(help: "The card: \(CardKind.allCases.map(\.rawValue).joined(separator: ", ")).") var card: CardKind =
        .iso7816
    @OptionGroup var common: CommonOptions

    func run() async throws {
        let logger = common.makeLogger()
        let exporter = VPCDCardExporter(card: card.makeCard(), host: host, port: port, logger: logger)
        await exporter.run()
    }
}
