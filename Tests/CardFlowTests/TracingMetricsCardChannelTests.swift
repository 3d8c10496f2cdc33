import CardFlow
import Metrics
import Testing

@Suite("MetricsCardChannel: counters, status word and transport error dimensions, latency")
struct TracingMetricsCardChannelTests {
    static let reader = [("reader", "Test Reader")]

    static func dimensions(_ extra: (String, String)...) -> [(String, String)] { reader + extra }

    @Test func countsExchangesBytesAndTimesThem() async throws {
        let metrics = CapturingMetricsFactory()
        let base = try ExchangeScriptChannel(answers: ["6F0D830270018407A00000024710019000", "9000", "AABB9000"])
        let channel = MetricsCardChannel(wrapping: base, readerName: "Test Reader", factory: metrics)
        _ = try await channel.transmit(CommandAPDU(hex: "00A4040007A000000247100100")) // 13 bytes
        _ = try await channel.transmit(CommandAPDU(hex: "00A4020C020101")) // 7 bytes
        _ = try await channel.transmit(CommandAPDU(hex: "00B0000002")) // 5 bytes
        #expect(metrics.counter("cardflow_apdus_sent", Self.reader) == 3)
        #expect(metrics.counter("cardflow_apdu_bytes_sent", Self.reader) == 25)
        #expect(metrics.counter("cardflow_apdu_bytes_received", Self.reader) == 17 + 2 + 4)
        let latencies = metrics.timerValues("cardflow_apdu_duration", Self.reader)
        #expect(latencies.count == 3)
        #expect(latencies.allSatisfy { $0 >= 0 })
        // Success answers are no status errors.
        #expect(!metrics.counterTotals.keys.contains { $0.hasPrefix("cardflow_apdu_status_errors") })
    }

    @Test func countsStatusErrorsByStatusWord() async throws {
        let metrics = CapturingMetricsFactory()
        let answers = ["6A82", "6A82", "6982", "6283", "6110", "6C08", "9000", "63C2"]
        let channel = MetricsCardChannel(
            wrapping: try ExchangeScriptChannel(answers: answers), readerName: "Test Reader", factory: metrics)
        for _ in answers { _ = try await channel.transmit(CommandAPDU(hex: "00A4020C020101")) }
        #expect(metrics.counter("cardflow_apdu_status_errors", Self.dimensions(("sw", "6A82"))) == 2)
        #expect(metrics.counter("cardflow_apdu_status_errors", Self.dimensions(("sw", "6982"))) == 1)
        #expect(metrics.counter("cardflow_apdu_status_errors", Self.dimensions(("sw", "6283"))) == 1)
        #expect(metrics.counter("cardflow_apdu_status_errors", Self.dimensions(("sw", "63C2"))) == 1)
        let statusKeys = metrics.counterTotals.keys.filter { $0.hasPrefix("cardflow_apdu_status_errors") }.sorted()
        #expect(
            statusKeys
                == ["6283", "63C2", "6982", "6A82"].map { "cardflow_apdu_status_errors,reader=Test Reader,sw=\($0)" })
        #expect(metrics.counter("cardflow_apdus_sent", Self.reader) == Int64(answers.count))
    }

    @Test func theStatusErrorRuleCanBeReplaced() async throws {
        let metrics = CapturingMetricsFactory()
        let channel = MetricsCardChannel(
            wrapping: try ExchangeScriptChannel(answers: ["9100", "91AE", "6A82"]), readerName: "Test Reader",
            factory: metrics,
            isStatusError: { $0.sw1 == 0x91 && $0.sw2 != 0x00 && $0.sw2 != 0xAF })
        for _ in 0..<3 { _ = try await channel.transmit(CommandAPDU(hex: "905A00000300000000")) }
        #expect(
            metrics.counterTotals.filter { $0.key.hasPrefix("cardflow_apdu_status_errors") }
                == ["cardflow_apdu_status_errors,reader=Test Reader,sw=91AE": 1])
        #expect(MetricsCardChannel.isErrorByDefault(StatusWord(0x6A82)))
        #expect(!MetricsCardChannel.isErrorByDefault(.success))
    }

    @Test func countsTransportErrorsByTypeButNotCancellation() async throws {
        let metrics = CapturingMetricsFactory()
        let channel = MetricsCardChannel(
            wrapping: ExchangeScriptChannel([
                .fail(SimulatedTransportError()), .fail(SimulatedTransportError()), .fail(CancellationError()),
            ]),
            readerName: "Test Reader", factory: metrics)
        for _ in 0..<2 {
            await #expect(throws: SimulatedTransportError.self) {
                try await channel.transmit(CommandAPDU(hex: "00B0000002"))
            }
        }
        await #expect(throws: CancellationError.self) { try await channel.transmit(CommandAPDU(hex: "00B0000002")) }
        #expect(
            metrics.counter("cardflow_apdu_transport_errors", Self.dimensions(("error", "SimulatedTransportError")))
                == 2)
        #expect(metrics.counterTotals.filter { $0.key.hasPrefix("cardflow_apdu_transport_errors") }.count == 1)
        #expect(metrics.counter("cardflow_apdus_sent", Self.reader) == 3)
        #expect(metrics.counter("cardflow_apdu_bytes_received", Self.reader) == 0)
        #expect(metrics.timerValues("cardflow_apdu_duration", Self.reader).isEmpty)
    }

    @Test(arguments: [
        "00A40400", "00B0000000", "00B00000000100", "00DA00000101", "00DA000001AB00",
        "00DA0000000002ABCD", "00DA0000000002ABCD0000", "00B0000000FFFF",
    ])
    func bytesSentMatchTheEncoding(_ hex: String) async throws {
        let metrics = CapturingMetricsFactory()
        let command = try CommandAPDU(hex: hex)
        let channel = MetricsCardChannel(
            wrapping: try ExchangeScriptChannel(answers: ["9000"]), readerName: "Test Reader", factory: metrics)
        _ = try await channel.transmit(command)
        #expect(metrics.counter("cardflow_apdu_bytes_sent", Self.reader) == Int64(command.encoded().count))
    }

    @Test func stacksWithTracing() async throws {
        let metrics = CapturingMetricsFactory()
        let log = CapturedLog()
        let channel = TracingCardChannel(
            wrapping: MetricsCardChannel(
                wrapping: try ExchangeScriptChannel(answers: ["6A82"]), readerName: "R", factory: metrics),
            logger: log.logger())
        _ = try await channel.transmit(CommandAPDU(hex: "00A4020C020101"))
        #expect(log.messages.count == 3)
        #expect(metrics.counter("cardflow_apdu_status_errors", [("reader", "R"), ("sw", "6A82")]) == 1)
    }
}
