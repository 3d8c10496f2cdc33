import ArgumentParser
import CardFlow
import CardSimulator
import Foundation
import VPCD

/// `vpcdtool bench`: APDUs per second through our listener to our exporter over loopback TCP,
/// in one process, with the APDU test card answering.
struct BenchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench",
        abstract: "Measure APDUs per second: our VPCDListener → loopback TCP → our VPCDCardExporter → simulated card.")

    @Option(help: "APDUs to time (after 100 untimed ones).") var count = 5_000
    @Option(help: "The command APDU in hex (default NO-OP, 80 10 00 00; 8020000000 gets 256 bytes back).")
    var apdu = "80100000"
    @OptionGroup var common: CommonOptions

    func run() async throws {
        let logger = common.makeLogger()
        guard let command = try? [UInt8](hex: apdu), command.count >= 4 else { throw ValidationError("--apdu: hex, at least 4 bytes") }
        let count = self.count
        let line = try await VPCDListener.withListener(port: 0, logger: logger) { listener in
            let exporter = VPCDCardExporter(card: SimulatedCard(APDUTestCard()), port: listener.port, logger: logger)
            let exporting = Task { await exporter.run() }
            defer { exporting.cancel() }
            let card = try await listener.waitForCard()
            _ = try await card.powerOn()
            var answer: [UInt8] = []
            for _ in 0..<100 { answer = try await card.transmit(command) }
            let clock = ContinuousClock()
            let start = clock.now
            for _ in 0..<count { _ = try await card.transmit(command) }
            let elapsed = clock.now - start
            let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
            return "RATE \(count) \(String(format: "%.3f", seconds)) \(String(format: "%.1f", Double(count) / seconds))"
                + " (answer \(answer.count) bytes, SW \(Array(answer.suffix(2)).hexString))"
        }
        print(line)
    }
}
