import CardFlow
import CardFlowDaemon
import CardFlowDaemonControl
import CardFlowDaemonFlows
import CardFlowDaemonTestSupport
import CardFlowSimulator
import CardFlowSimulatorCards
import Foundation
import Testing

/// cardd's `iso15693-write` flow (the kind added as one file plus one line in
/// `DaemonFlowKinds.standard`) on a simulated ISO 15693 tag, seen again and again as a daemon
/// sees a tag that stays on the reader or comes back.
@Suite("cardd ISO 15693 write")
struct ISO15693WriteJobTests {
    static let label: [UInt8] = Array("ASSET-0042-ROOM7".utf8) // 4 blocks of 4 bytes

    /// Runs `flow` once through a daemon over `virtual` (a new daemon each time: the tag
    /// stays in the simulated reader between runs) and returns the job.
    static func run(_ flow: ISO15693WriteFlow, on virtual: VirtualCCIDReader) async throws -> JobRecord {
        let configuration = DaemonConfiguration(
            readers: [], rules: [CardRule(name: "label", flow: FlowSpecification(flow))])
        var result: JobRecord?
        try await DaemonHarness.run(
            configuration: configuration, simulatedReaders: [Reader.simulated(virtual, id: "sim:0")]
        ) { harness in
            result = try await harness.waitForJob { $0.rule == "label" && $0.state != .running }
        }
        return try #require(result)
    }

    static func tagReader(lockedBlocks: Set<Int> = []) async -> VirtualCCIDReader {
        let virtual = VirtualCCIDReader(configuration: VirtualReaderConfiguration())
        await virtual.insert(SimulatedISO15693Tag(seed: 7, blockSize: 4, blockCount: 28, lockedBlocks: lockedBlocks))
        return virtual
    }

    static func tag(in virtual: VirtualCCIDReader) async throws -> SimulatedISO15693Tag {
        try #require(await virtual.card(slot: 0) as? SimulatedISO15693Tag)
    }

    @Test func theBlocksAreWrittenReadBackAndARerunWritesNothing() async throws {
        let virtual = await Self.tagReader()
        let flow = ISO15693WriteFlow(first: 8, data: Self.label)
        let first = try await Self.run(flow, on: virtual)
        #expect(first.state == .succeeded, "\(first.error ?? "")")
        #expect(first.flow == "iso15693-write")
        #expect(first.outcome?.values["written"] == "4")
        #expect(first.outcome?.values["blocks"] == "4")
        #expect(first.outcome?.values["uid"]?.count == 16)
        let memory = try await Self.tag(in: virtual).blocks
        #expect(Array(memory[8..<12].joined()) == Self.label)
        let seeded: [UInt8] = [0x70, 0x71, 0x72, 0x73] // block 7 as the simulated tag starts
        #expect(memory[7] == seeded, "the block before is untouched")

        let again = try await Self.run(flow, on: virtual)
        #expect(again.state == .succeeded, "\(again.error ?? "")")
        #expect(again.outcome?.values["written"] == "0")
    }

    @Test func onlyTheBlocksThatDifferAreWritten() async throws {
        let virtual = await Self.tagReader()
        _ = try await Self.run(ISO15693WriteFlow(first: 8, data: Self.label), on: virtual)
        var changed = Self.label
        changed[13] = UInt8(ascii: "9") // block 11 only
        let record = try await Self.run(ISO15693WriteFlow(first: 8, data: changed), on: virtual)
        #expect(record.state == .succeeded, "\(record.error ?? "")")
        #expect(record.outcome?.values["written"] == "1")
        #expect(Array(try await Self.tag(in: virtual).blocks[8..<12].joined()) == changed)
    }

    @Test func lockingTwiceIsHarmlessAndALockedBlockKeepsItsBytes() async throws {
        let virtual = await Self.tagReader()
        let locking = ISO15693WriteFlow(first: 8, data: Self.label, lock: true)
        let first = try await Self.run(locking, on: virtual)
        #expect(first.state == .succeeded, "\(first.error ?? "")")
        #expect(first.outcome?.values["locked"] == "4")
        #expect(try await Self.tag(in: virtual).lockedBlocks == [8, 9, 10, 11])

        // The tag answers "already locked" (0x11): the flow counts it as done.
        let second = try await Self.run(locking, on: virtual)
        #expect(second.state == .succeeded, "\(second.error ?? "")")
        #expect(second.outcome?.values["locked"] == "0")
        #expect(second.outcome?.values["written"] == "0")

        var other = Self.label
        other[0] = UInt8(ascii: "B")
        let refused = try await Self.run(ISO15693WriteFlow(first: 8, data: other), on: virtual)
        #expect(refused.state == .failed)
        #expect(refused.error?.contains("block 8 is locked") == true, "\(refused.error ?? "")")
        #expect(Array(try await Self.tag(in: virtual).blocks[8..<12].joined()) == Self.label)
    }

    @Test func dataThatDoesNotFitTheTagFailsBeforeAnyWrite() async throws {
        let virtual = await Self.tagReader()
        let before = try await Self.tag(in: virtual).blocks

        let partial = try await Self.run(ISO15693WriteFlow(first: 8, data: [1, 2, 3, 4, 5, 6]), on: virtual)
        #expect(partial.state == .failed)
        #expect(partial.error?.contains("not whole 4-byte blocks") == true, "\(partial.error ?? "")")

        // 28 blocks: blocks 26 and 27 exist, block 28 does not.
        let beyond = try await Self.run(
            ISO15693WriteFlow(first: 26, data: Array(repeating: 0xAA, count: 12)), on: virtual)
        #expect(beyond.state == .failed)
        #expect(beyond.error?.contains("3 blocks from block 26") == true, "\(beyond.error ?? "")")
        #expect(try await Self.tag(in: virtual).blocks == before)
    }

    @Test(
        "the rule's JSON is checked when the configuration is read",
        arguments: [
            (#"{"kind":"iso15693-write","first":8,"data":"41534554"}"#, true),
            (#"{"kind":"iso15693-write","data":"41534554","lock":true}"#, true),
            (#"{"kind":"iso15693-write","first":256,"data":"41534554"}"#, false),
            (#"{"kind":"iso15693-write","first":-1,"data":"41534554"}"#, false),
            (#"{"kind":"iso15693-write","first":8}"#, false),
            (#"{"kind":"iso15693-write","first":8,"data":""}"#, false),
            (#"{"kind":"iso15693-write","first":8,"data":"4G"}"#, false),
        ])
    func ruleJSON(json: String, valid: Bool) throws {
        try expectFlowJSON(json, valid: valid)
    }

    @Test func aFleetRuleCanDriveItWithEachRecordsData() throws {
        let template = try FleetFlowTemplate(
            parameters: ["kind": .string("iso15693-write"), "first": .number(8), "lock": .bool(true)],
            kinds: .standard)
        let record = try template.specification(for: Array(#"{"data": "4153534554303432"}"#.utf8))
        #expect(record == .iso15693Write(first: 8, data: Array("ASSET042".utf8), lock: true))
        #expect(throws: DaemonFlowError.self) { try template.specification(for: Array(#"{"data": ""}"#.utf8)) }
        // A kind that only reads personalises nothing: a fleet cannot drive it.
        #expect(throws: DaemonFlowError.self) {
            try FleetFlowTemplate(parameters: ["kind": .string("iso15693-read")], kinds: .standard)
        }
    }
}
