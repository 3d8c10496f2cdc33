import CardFlow
import CardFlowDaemon
import CardFlowDaemonControl
import CardFlowDaemonFlows
import CardFlowDaemonTestSupport
import CardFlowSimulator
import CardFlowStorageCards
import Foundation
import Testing

/// cardd's `classic-value` flow: a purse on a simulated MIFARE Classic card topped up with the
/// sector key from the key store.
@Suite("cardd MIFARE Classic value transfer")
struct ClassicValueJobTests {
    static let keyB: [UInt8] = [0xB0, 0xB1, 0xB2, 0xB3, 0xB4, 0xB5]

    /// A reader whose card holds `balance` in block 12 of a sector opened for writes by key B.
    static func purseReader(balance: Int32) async throws -> Reader {
        let virtual = VirtualCCIDReader(configuration: VirtualReaderConfiguration())
        await virtual.insert(SimulatedMIFAREClassicCard(seed: 31, size: .oneK))
        let reader = Reader.simulated(virtual, id: "sim:0")
        try await reader.withSession { session in
            let card = try await ClassicClient.open(on: session)
            try await card.authenticate(sector: 3, keyType: .a, key: .transport)
            try await card.writeValue(balance, block: 12)
            let value = try #require(ClassicAccessCondition(rawValue: 0b110))
            try await card.writeTrailer(
                ClassicSectorTrailer(
                    keyA: .transport,
                    accessBits: try ClassicAccessBits(
                        dataBlocks: [value, value, value], trailer: #require(ClassicAccessCondition(rawValue: 0b011))),
                    generalPurposeByte: 0x69, keyB: try ClassicKey(keyB)),
                sector: 3)
        }
        return reader
    }

    static func run(_ rule: ClassicValueRule, balance: Int32, secret: [UInt8]? = keyB) async throws -> JobRecord {
        let keys = InMemoryKeyStore()
        if let secret { try await keys.setSecret(try SecretBytes(secret), named: "purse-key-b") }
        let configuration = DaemonConfiguration(
            readers: [], rules: [CardRule(name: "purse", flow: .classicValue(rule))])
        var result: JobRecord?
        try await DaemonHarness.run(
            configuration: configuration, simulatedReaders: [try await purseReader(balance: balance)], keys: keys
        ) { harness in
            result = try await harness.waitForJob { $0.rule == "purse" && $0.state != .running }
        }
        return try #require(result)
    }

    @Test func aTopUpMovesTheBalanceAndTheJobLogSaysFromWhatToWhat() async throws {
        let record = try await Self.run(
            ClassicValueRule(
                operation: "top-up", amount: 250, block: 12, backupBlock: 13, keySecret: "purse-key-b",
                maximum: 10_000),
            balance: 500)
        #expect(record.state == .succeeded, "\(record.error ?? "")")
        #expect(record.flow == "classic-value")
        #expect(record.outcome?.values["before"] == "500")
        #expect(record.outcome?.values["after"] == "750")
        #expect(record.outcome?.values["uid"]?.count == 8)
    }

    @Test func aSpendLargerThanTheBalanceFailsAndNamesWhy() async throws {
        let record = try await Self.run(
            ClassicValueRule(operation: "spend", amount: 501, block: 12, backupBlock: 13, keySecret: "purse-key-b"),
            balance: 500)
        #expect(record.state == .failed)
        #expect(record.error?.contains("lower than the amount") == true, "\(record.error ?? "")")
    }

    @Test func aMissingOrMalformedKeySecretFailsBeforeTheCardIsTouched() async throws {
        let rule = ClassicValueRule(
            operation: "top-up", amount: 1, block: 12, backupBlock: 13, keySecret: "purse-key-b")
        let missing = try await Self.run(rule, balance: 5, secret: nil)
        #expect(missing.state == .failed && missing.error?.contains("purse-key-b") == true, "\(missing.error ?? "")")
        let short = try await Self.run(rule, balance: 5, secret: [0x01, 0x02])
        #expect(short.state == .failed && short.error?.contains("6 bytes") == true, "\(short.error ?? "")")
    }

    @Test(
        "the rule's JSON is checked when the configuration is read",
        arguments: [
            (
                #"{"kind":"classic-value","operation":"top-up","amount":5,"block":12,"backupBlock":13,"keySecret":"k"}"#,
                true
            ),
            (
                #"{"kind":"classic-value","operation":"spend","amount":5,"block":12,"backupBlock":13,"keySecret":"k","keyType":"a","readerKeySlot":1,"maximum":90}"#,
                true
            ),
            (
                #"{"kind":"classic-value","operation":"steal","amount":5,"block":12,"backupBlock":13,"keySecret":"k"}"#,
                false
            ),
            (
                #"{"kind":"classic-value","operation":"top-up","amount":0,"block":12,"backupBlock":13,"keySecret":"k"}"#,
                false
            ),
            (
                #"{"kind":"classic-value","operation":"top-up","amount":5,"block":12,"backupBlock":12,"keySecret":"k"}"#,
                false
            ),
            (
                #"{"kind":"classic-value","operation":"top-up","amount":5,"block":300,"backupBlock":13,"keySecret":"k"}"#,
                false
            ),
            (
                #"{"kind":"classic-value","operation":"top-up","amount":5,"block":12,"backupBlock":13,"keySecret":"k","keyType":"c"}"#,
                false
            ),
            (#"{"kind":"classic-value","operation":"top-up","amount":5,"block":12,"backupBlock":13}"#, false),
        ])
    func ruleJSON(json: String, valid: Bool) throws {
        try expectFlowJSON(json, valid: valid)
    }
}
