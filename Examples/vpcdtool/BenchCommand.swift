import ArgumentParser
import CardFlow
import CardFlowSimulator
import CardFlowVPCD
import CardFlowVPCDProtocol
import Foundation

/// `vpcdtool bench`: APDUs per second through our listener to our exporter over loopback TCP,
/// in one process, with the APDU test card answering.
struct BenchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench",
        abstract: "Measure APDUs per second: our VPCDListener → loopback TCP → our VPCDCardExporter → simulated card.")

    @Option(help: "APDUs to time (after 100 untimed ones).") var count = 5_000
    @Option(help: "The command APDU in hex (default NO-OP, 80 10 00 00; 8020000000 gets 256 bytes back).")
    var apdu = "80100000"
    @Flag(
        help:
            "Also time CardFlow sessions: over vpcd (VPCDReaderDriver → loopback → exporter → card) and over the in-process simulator (CCID driver → simulated reader → the same card), and print the network path's overhead per APDU."
    )
    var sessions = false
    @OptionGroup var common: CommonOptions

    func run() async throws {
        if sessions {
            try await compareSessions()
            return
        }
        let logger = common.makeLogger()
        guard let command = try? [UInt8](hex: apdu), command.count >= 4 else {
            throw ValidationError("--apdu: hex, at least 4 bytes")
        }
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

    /// CardFlow sessions over both backends with the same card model and APDU, one after the
    /// other in this process; prints each rate and the difference per APDU.
    private func compareSessions() async throws {
        let logger = common.makeLogger()
        let command = try CommandAPDU(hex: apdu)
        let count = self.count
        func timed(_ reader: Reader) async throws -> Double {
            try await reader.withSession { session in
                for _ in 0..<100 { _ = try await session.transmit(command) }
                let start = ContinuousClock.now
                for _ in 0..<count { _ = try await session.transmit(command) }
                let elapsed = ContinuousClock.now - start
                return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
            }
        }
        let virtual = VirtualCCIDReader()
        await virtual.insert(APDUTestCard())
        let simulated = try await timed(Reader.simulated(virtual))
        let network = try await VPCDListener.withListener(port: 0, logger: logger) { listener in
            let exporter = VPCDCardExporter(card: SimulatedCard(APDUTestCard()), port: listener.port, logger: logger)
            let exporting = Task { await exporter.run() }
            defer { exporting.cancel() }
            _ = try await listener.waitForCard()
            return try await timed(Reader(vpcd: listener))
        }
        func line(_ name: String, _ seconds: Double) -> String {
            "\(name) \(count) APDUs \(String(format: "%.3f", seconds)) s \(String(format: "%.1f", Double(count) / seconds)) APDU/s "
                + "(\(String(format: "%.1f", seconds / Double(count) * 1e6)) µs each)"
        }
        print(line("SESSION-SIM", simulated))
        print(line("SESSION-VPCD", network))
        print(
            "OVERHEAD \(String(format: "%.1f", (network - simulated) / Double(count) * 1e6)) µs per APDU (vpcd over loopback minus the in-process simulator)"
        )
    }
}
