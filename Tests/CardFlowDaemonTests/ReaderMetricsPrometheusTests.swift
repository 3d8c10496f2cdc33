import CardFlow
import CardFlowCCID
import CardFlowCCIDProtocol
import CardFlowDaemon
import CardFlowSimulator
import CardFlowSimulatorCards
import Testing

/// A reader makes its sessions' APDU metrics once, when it is made. swift-prometheus (the
/// registry cardd serves) is the judge here: its text exposition must count every session's
/// APDUs in one series, and a reader made again under the same name (a reader unplugged and
/// plugged back) must land in the same series, not be refused or start a second one.
@Suite("Readers' APDU metrics in swift-prometheus")
struct ReaderMetricsPrometheusTests {
    static func reader(metrics: DaemonMetrics) async -> Reader {
        let virtual = VirtualCCIDReader(configuration: VirtualReaderConfiguration())
        await virtual.insert(ISO7816Card(seed: 1))
        let configuration = virtual.configuration
        let driver = CCIDDriver(transport: InMemoryUSBTransport(reader: virtual), descriptor: configuration.descriptor)
        let info = ReaderInfo(
            id: "sim:0", name: "Plugged Reader", vendorID: configuration.vendorID,
            productID: configuration.productID, descriptor: configuration.descriptor)
        return Reader(info: info, driver: driver, metricsFactory: metrics.factory)
    }

    /// The value of the exposition line for `series` (e.g. `cardflow_apdus_sent{reader="…"}`).
    static func value(of series: String, in text: String) -> Double? {
        text.split(separator: "\n").first { $0.hasPrefix(series + " ") }
            .flatMap { Double($0.split(separator: " ").last ?? "") }
    }

    @Test func sessionsAndAReaderMadeAgainCountInOneSeries() async throws {
        let metrics = DaemonMetrics()
        let select = try CommandAPDU(hex: "00A4040007A0000002471001")
        for _ in 0..<2 {
            // Each pass is the reader plugged in again: a new Reader with the same name.
            let reader = await Self.reader(metrics: metrics)
            for _ in 0..<2 {
                try await reader.withSession { session in _ = try await session.transmit(select) }
            }
        }
        let text = metrics.exposition()
        // Four sessions, each a GET DATA (UID) and a SELECT: 8 APDUs in one series.
        let sent = #"cardflow_apdus_sent{reader="Plugged Reader"}"#
        #expect(Self.value(of: sent, in: text) == 8, "\(text)")
        #expect(text.components(separatedBy: "\n").filter { $0.hasPrefix("cardflow_apdus_sent{") }.count == 1)
        let timed = #"cardflow_apdu_duration_count{reader="Plugged Reader"}"#
        #expect(Self.value(of: timed, in: text) == 8, "\(text)")
    }
}
