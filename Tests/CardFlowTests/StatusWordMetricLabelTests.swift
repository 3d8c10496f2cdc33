import CardFlow
import Metrics
import Testing

/// The `sw` dimension comes from the card: it must stay a small, fixed set of values.
@Suite("Status word metric labels are bounded")
struct StatusWordMetricLabelTests {
    /// Answers with the status word P1 P2 of the command.
    struct EchoStatusChannel: CardChannel {
        func transmit(_ command: CommandAPDU) async throws -> ResponseAPDU {
            ResponseAPDU(sw1: command.p1, sw2: command.p2)
        }
    }

    /// A card answering every one of the 65,536 status words used to create a series for each.
    @Test func everyStatusWordFromACardGivesFewSeries() async throws {
        let metrics = CapturingMetricsFactory()
        let channel = MetricsCardChannel(wrapping: EchoStatusChannel(), readerName: "R", factory: metrics)
        for value in 0...0xFFFF {
            _ = try await channel.transmit(
                CommandAPDU(cla: 0x00, ins: 0xB0, p1: UInt8(value >> 8), p2: UInt8(value & 0xFF)))
        }
        let series = metrics.counterTotals.keys.filter { $0.hasPrefix("cardflow_apdu_status_errors") }
        #expect(series.count <= 150, "\(series.count) series")
        // Every error is still counted, in some series.
        let counted = metrics.counterTotals.filter { $0.key.hasPrefix("cardflow_apdu_status_errors") }.values.reduce(
            0, +)
        #expect(counted == Int64(0x10000 - 1 - 256 - 256))
        // Named status words keep their value.
        #expect(metrics.counter("cardflow_apdu_status_errors", [("reader", "R"), ("sw", "6A82")]) == 1)
        #expect(metrics.counter("cardflow_apdu_status_errors", [("reader", "R"), ("sw", "63C2")]) == 1)
        #expect(metrics.counter("cardflow_apdu_status_errors", [("reader", "R"), ("sw", "6Fxx")]) == 255)
    }
}
