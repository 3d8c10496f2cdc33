import CardFlow
import CardFlowDaemon
import CardFlowDaemonControl
import CardFlowDaemonFlows
import CardFlowDaemonTestSupport
import CardFlowSimulator
import Foundation
import Testing

/// cardd's `ndef-write` and `ndef-read` flows on a simulated FeliCa Lite-S (a Type 3 tag): the
/// same rules as for Type 2, 4 and 5 tags, the card kind found from its ATR.
@Suite("cardd NDEF on FeliCa Lite-S")
struct FeliCaNDEFJobTests {
    static func run(_ json: String, on virtual: VirtualCCIDReader) async throws -> JobRecord {
        let rule = CardRule(
            name: "felica",
            flow: try DaemonFlowKinds.standard.decoder().decode(FlowSpecification.self, from: Data(json.utf8)))
        var record: JobRecord?
        try await DaemonHarness.run(
            configuration: DaemonConfiguration(readers: [], rules: [rule]),
            simulatedReaders: [Reader.simulated(virtual, id: "sim:0")]
        ) { harness in
            record = try await harness.waitForJob { $0.rule == rule.name && $0.state != .running }
        }
        return try #require(record)
    }

    @Test("an NDEF-formatted Lite-S gets the message, and ndef-read reads it back")
    func writeAndRead() async throws {
        let virtual = VirtualCCIDReader(configuration: VirtualReaderConfiguration())
        await virtual.insert(SimulatedFeliCaLiteSCard(seed: 7, ndefFormatted: true))
        let written = try await Self.run(#"{"kind":"ndef-write","uri":"https://example.org/f"}"#, on: virtual)
        #expect(written.state == .succeeded, "\(written.error ?? "")")
        let message = try #require(written.outcome?.values["written"])
        let card = try #require(await virtual.lastKnownCard() as? SimulatedFeliCaLiteSCard)
        // The attribute block's Ln is the message length, and block 1 starts with the record.
        #expect(Int(card.userBlocks[13]) == message.count / 2)
        #expect(Array(card.userBlocks[16..<16 + message.count / 2]).hexString == message)
        let read = try await Self.run(#"{"kind":"ndef-read"}"#, on: virtual)
        #expect(read.state == .succeeded, "\(read.error ?? "")")
        #expect(read.outcome?.values["message"] == message)
    }

    @Test("an unformatted Lite-S fails the job with the reason, the card untouched")
    func unformatted() async throws {
        let virtual = VirtualCCIDReader(configuration: VirtualReaderConfiguration())
        let blank = SimulatedFeliCaLiteSCard(seed: 8)
        await virtual.insert(blank)
        let record = try await Self.run(#"{"kind":"ndef-write","text":"hello"}"#, on: virtual)
        #expect(record.state == .failed)
        #expect(record.error?.contains("not NDEF formatted") == true, "\(record.error ?? "")")
        #expect(await virtual.lastKnownCard() as? SimulatedFeliCaLiteSCard == blank)
    }
}
