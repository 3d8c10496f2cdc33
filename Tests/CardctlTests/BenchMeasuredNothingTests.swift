import Foundation
import Testing

/// A bench that measured nothing is a failure (issue 35, item 14): exit 1, and the reason in
/// both the JSON and the text.
@Suite("cardctl bench: measuring nothing fails")
struct BenchMeasuredNothingTests {
    /// A card that leaves after its first answer: every measured round trip fails.
    static let leavingCard = "sim:iso7816,lift-after=1"

    @Test("latency with no measured round trip: exit 1, failure in the JSON run and on stderr")
    func latencyJSON() async throws {
        let result = try await CardctlProcess.run([
            "--reader", Self.leavingCard, "bench", "latency", "--json", "--count", "20", "--warmup", "1",
            "--min-duration", "0", "--no-progress",
        ])
        #expect(result.status == 1, "\(result)")
        let document = try #require(
            try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any], "\(result)")
        let run = try #require((document["runs"] as? [[String: Any]])?.first, "\(result)")
        let failure = try #require(run["failure"] as? String, "\(result)")
        #expect(failure.contains("0 round trips measured"), "\(failure)")
        #expect(result.stderr.contains("measured nothing"), "\(result)")
    }

    @Test("latency text output names the failure")
    func latencyText() async throws {
        let result = try await CardctlProcess.run([
            "--reader", Self.leavingCard, "bench", "latency", "--count", "20", "--warmup", "1",
            "--min-duration", "0", "--no-progress",
        ])
        #expect(result.status == 1, "\(result)")
        #expect(result.stdout.contains("FAILED: measured nothing"), "\(result)")
    }

    @Test("a latency run that measured something still exits 0")
    func measuredRunSucceeds() async throws {
        let result = try await CardctlProcess.run([
            "--reader", "sim:iso7816", "bench", "latency", "--json", "--count", "20", "--warmup", "1",
            "--min-duration", "0", "--no-progress",
        ])
        #expect(result.status == 0, "\(result)")
        #expect(!result.stdout.contains("\"failure\""), "\(result)")
    }
}
