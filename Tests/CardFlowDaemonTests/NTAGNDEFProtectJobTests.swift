import CardFlow
import CardFlowDaemon
import CardFlowDaemonControl
import CardFlowDaemonFlows
import CardFlowDaemonTestSupport
import CardFlowSimulator
import Foundation
import Testing

/// cardd's `ntag-ndef-protect` flow on the simulated NTAG21x: NDEF written, then PWD, PACK and
/// AUTH0 set; a second run on the protected tag authenticates with the same password.
@Suite("cardd NTAG NDEF write with password protection")
struct NTAGNDEFProtectJobTests {
    static func rule(_ json: String) throws -> CardRule {
        CardRule(
            name: "ntag",
            flow: try DaemonFlowKinds.standard.decoder().decode(FlowSpecification.self, from: Data(json.utf8)))
    }

    /// Runs `rule` once on the tag already in `virtual`; returns the job record.
    static func run(_ rule: CardRule, on virtual: VirtualCCIDReader, keys: (any KeyStore)? = nil) async throws
        -> JobRecord
    {
        let reader = Reader.simulated(virtual, id: "sim:0")
        var record: JobRecord?
        try await DaemonHarness.run(
            configuration: DaemonConfiguration(readers: [], rules: [rule]), simulatedReaders: [reader], keys: keys
        ) { harness in
            record = try await harness.waitForJob { $0.rule == rule.name && $0.state != .running }
        }
        return try #require(record)
    }

    @Test("a tag gets its NDEF message and a password; a second run authenticates and rewrites")
    func writeThenProtect() async throws {
        let virtual = VirtualCCIDReader(configuration: VirtualReaderConfiguration())
        await virtual.insert(SimulatedNTAG21xCard(seed: 5, model: .ntag213))
        let rule = try Self.rule(
            #"{"kind":"ntag-ndef-protect","uri":"https://example.org/n","password":"CAFEF00D","pack":"BEEF","auth0":4}"#
        )
        let first = try await Self.run(rule, on: virtual)
        #expect(first.state == .succeeded, "\(first.error ?? "")")
        #expect(first.flow == "ntag-ndef-protect")
        #expect(first.outcome?.values["auth0"] == "4" && first.outcome?.values["protects"] == "writes")
        #expect(first.outcome?.values["product"] == "NTAG213")
        let card = try #require(await virtual.lastKnownCard() as? SimulatedNTAG21xCard)
        #expect(card.memory[0x2B * 4..<0x2C * 4] == [0xCA, 0xFE, 0xF0, 0x0D])
        #expect(card.memory[0x2C * 4..<0x2C * 4 + 2] == [0xBE, 0xEF])
        #expect(card.memory[0x29 * 4 + 3] == 0x04)
        #expect(card.memory[16..<18] == [0x03, 0x12]) // the NDEF TLV holds the URI record
        let second = try await Self.run(rule, on: virtual)
        #expect(second.state == .succeeded, "\(second.error ?? "")")
    }

    @Test("the password from a key-store secret; a missing secret fails before the tag is touched")
    func passwordFromSecret() async throws {
        let virtual = VirtualCCIDReader(configuration: VirtualReaderConfiguration())
        await virtual.insert(SimulatedNTAG21xCard(seed: 6, model: .ntag215))
        let rule = try Self.rule(
            #"{"kind":"ntag-ndef-protect","text":"hello","passwordSecret":"ntag-pwd","pack":"0102","auth0":16,"protectReads":true}"#
        )
        let keys = InMemoryKeyStore()
        let missing = try await Self.run(rule, on: virtual, keys: keys)
        #expect(missing.state == .failed && missing.error?.contains("ntag-pwd") == true, "\(missing.error ?? "")")
        try await keys.setSecret(try SecretBytes([0x11, 0x22, 0x33, 0x44]), named: "ntag-pwd")
        let record = try await Self.run(rule, on: virtual, keys: keys)
        #expect(record.state == .succeeded, "\(record.error ?? "")")
        #expect(record.outcome?.values["protects"] == "reads and writes")
        let card = try #require(await virtual.lastKnownCard() as? SimulatedNTAG21xCard)
        #expect(card.memory[0x85 * 4..<0x86 * 4] == [0x11, 0x22, 0x33, 0x44])
        #expect(card.memory[0x84 * 4] & 0x80 != 0)
        // Read-protected now: the second run finds out by a refused read, powers the tag up
        // again and authenticates.
        let again = try await Self.run(rule, on: virtual, keys: keys)
        #expect(again.state == .succeeded, "\(again.error ?? "")")
    }

    @Test(
        "the rule's JSON is checked when the configuration is read",
        arguments: [
            (#"{"kind":"ntag-ndef-protect","uri":"https://e.org","password":"01020304","pack":"0000"}"#, true),
            (#"{"kind":"ntag-ndef-protect","text":"t","passwordSecret":"p","pack":"0000","auth0":255}"#, true),
            (
                #"{"kind":"ntag-ndef-protect","uri":"https://e.org","password":"01020304","currentPassword":"FFFFFFFF","pack":"0000","authenticationLimit":7}"#,
                true
            ),
            (#"{"kind":"ntag-ndef-protect","password":"01020304","pack":"0000"}"#, false),
            (#"{"kind":"ntag-ndef-protect","uri":"https://e.org","password":"010203","pack":"0000"}"#, false),
            (#"{"kind":"ntag-ndef-protect","uri":"https://e.org","pack":"0000"}"#, false),
            (
                #"{"kind":"ntag-ndef-protect","uri":"https://e.org","password":"01020304","passwordSecret":"p","pack":"0000"}"#,
                false
            ),
            (#"{"kind":"ntag-ndef-protect","uri":"https://e.org","password":"01020304","pack":"00"}"#, false),
            (
                #"{"kind":"ntag-ndef-protect","uri":"https://e.org","password":"01020304","pack":"0000","auth0":2}"#,
                false
            ),
            (
                #"{"kind":"ntag-ndef-protect","uri":"https://e.org","password":"01020304","pack":"0000","authenticationLimit":8}"#,
                false
            ),
        ])
    func ruleJSON(json: String, valid: Bool) throws {
        try expectFlowJSON(json, valid: valid)
    }
}
