import CardFlow
import CardFlowDaemon
import CardFlowDaemonFlows
import Foundation
import Testing

@Suite("cardd configuration")
struct DaemonConfigurationTests {
    static let example = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Examples/cardd/cardd.example.json").path

    @Test func theShippedExampleLoads() throws {
        let configuration = try DaemonConfiguration(contentsOfFile: Self.example, flowKinds: .standard)
        #expect(configuration.readers == ["usb"])
        #expect(
            configuration.rules.map(\.name) == [
                "posters", "ton wallets", "transponders", "vicinity badges", "everything else",
            ])
        #expect(configuration.rules[0].flow == .ndefWrite(.uri("https://example.com/welcome")))
        #expect(configuration.rules[0].match.aid == [0xD2, 0x76, 0x00, 0x00, 0x85, 0x01, 0x01])
        #expect(
            configuration.rules[1].flow
                == .tonActivate(
                    TONActivationRule(
                        activationSecret: "ton.activation.{serial}",
                        pinSecret: "ton.pin")))
        #expect(
            configuration.rules[2].flow
                == .relay(
                    RelayRule(
                        url: "wss://sync.example.com/sync",
                        aids: [[0xF0, 0xC0, 0xFF, 0xEE, 0x00, 0x00, 0x01]],
                        tokenSecret: "relay.token", idleTimeoutSeconds: 30)))
        #expect(configuration.rules[3].flow == .iso15693Read(first: 0, count: 4))
        #expect(configuration.keyStore == "/var/lib/cardd/keys.json")
        #expect(configuration.cooldownMilliseconds == 200)
        #expect(configuration.transmissionProtocol == nil)
    }

    @Test(arguments: [("t0", CardProtocol?.some(.t0)), ("t1", .t1), ("automatic", nil)])
    func theProtocolReachesTheSessionPolicy(name: String, expected: CardProtocol?) throws {
        let configuration = try decode(#"{"protocol": "\#(name)"}"#)
        #expect(configuration.transmissionProtocol == expected)
        #expect(ReaderFleet.policy(for: configuration).transmissionProtocol == expected)
    }

    @Test func rulesMatchInOrder() throws {
        let configuration = try decode(
            """
            {"rules": [
              {"name": "a", "match": {"atrPrefix": "3B8F", "uidLength": 7}, "flow": {"kind": "report"}},
              {"name": "b", "match": {"aid": "A000000247"}, "flow": {"kind": "ndef-read"}},
              {"name": "c", "match": {}, "flow": {"kind": "apdu", "apdus": ["00A4040000"], "expect": "6A82"}}
            ]}
            """)
        let sevenByteUID = CardFacts(atr: [0x3B, 0x8F, 0x80], uid: [1, 2, 3, 4, 5, 6, 7])
        #expect(configuration.rule(for: sevenByteUID)?.name == "a")
        let withAID = CardFacts(
            atr: [0x3B, 0x81], uid: [1, 2, 3, 4], selectableAIDs: [[0xA0, 0x00, 0x00, 0x02, 0x47]])
        #expect(configuration.rule(for: withAID)?.name == "b")
        #expect(configuration.rule(for: CardFacts(atr: [0x3B], uid: nil))?.name == "c")
        #expect(configuration.rules[2].flow == .apdus([[0x00, 0xA4, 0x04, 0x00, 0x00]], expect: 0x6A82))
    }

    @Test func badFilesAreRejectedWithThePlace() throws {
        let cases: [(String, String)] = [
            (#"{"rules": [{"name": "x", "flow": {"kind": "explode"}}]}"#, "unknown flow kind 'explode'"),
            (#"{"rules": [{"name": "x", "match": {"aid": "XYZ"}, "flow": {"kind": "report"}}]}"#, "rules[0].match.aid"),
            (#"{"rules": [{"name": "x", "flow": {"kind": "apdu", "apdus": []}}]}"#, "1 to 1024 APDUs"),
            (
                #"{"rules": [{"name": "x", "flow": {"kind": "apdu", "apdus": ["00A4040000"], "expect": "90"}}]}"#,
                "4 hex digits"
            ),
            (#"{"rules": [{"name": "x", "flow": {"kind": "ndef-write"}}]}"#, "'uri' or 'text'"),
            (#"{"cooldownMilliseconds": -1}"#, ">= 0"),
            (#"{"protocol": "t2"}"#, "automatic, t0 or t1"),
            (#"{"protocol": 1}"#, "protocol"),
            (#"{"readers": "usb"}"#, "readers"),
            ("not json", "invalid"),
            (
                #"{"rules": [{"name": "x", "flow": {"kind": "desfire-provision", "aid": "0102", "file": 1, "size": 8, "keySlot": 1, "text": "a"}}]}"#,
                "3 bytes"
            ),
            (
                #"{"rules": [{"name": "x", "flow": {"kind": "desfire-provision", "aid": "010203", "file": 1, "size": 2, "keySlot": 1, "text": "abc"}}]}"#,
                "1 to 2 bytes"
            ),
            (
                #"{"rules": [{"name": "x", "flow": {"kind": "desfire-provision", "aid": "010203", "file": 1, "size": 8, "keySlot": 16, "text": "a"}}]}"#,
                "slot from 0 to 15"
            ),
            (
                #"{"rules": [{"name": "x", "flow": {"kind": "desfire-provision", "aid": "010203", "file": 1, "size": 8, "comm": "rot13", "keySlot": 1, "text": "a"}}]}"#,
                "plain, mac or enc"
            ),
            (
                #"{"rules": [{"name": "x", "flow": {"kind": "desfire-provision", "aid": "010203", "file": 1, "size": 8, "keySlot": 1, "key": "00112233"}}]}"#,
                "data"
            ),
            (
                #"{"rules": [{"name": "x", "flow": {"kind": "ton-activate", "activationSecret": "a b"}}]}"#,
                "{serial} or {csn}"
            ),
            (#"{"rules": [{"name": "x", "flow": {"kind": "relay", "url": "http://x.org/sync"}}]}"#, "ws"),
            (#"{"rules": [{"name": "x", "flow": {"kind": "relay", "url": "wss://127.0.0.1/sync"}}]}"#, "host name"),
            (
                #"{"rules": [{"name": "x", "flow": {"kind": "relay", "url": "ws://x.org/s", "aids": ["0102"]}}]}"#,
                "5 to 16 bytes"
            ),
            (
                #"{"rules": [{"name": "x", "flow": {"kind": "relay", "url": "ws://x.org/s", "tokenSecret": "has space"}}]}"#,
                "secret name"
            ),
            (
                #"{"rules": [{"name": "x", "flow": {"kind": "relay", "url": "ws://x.org/s", "maxAPDUs": 0}}]}"#,
                "APDUs per sync"
            ),
            (
                #"{"rules": [{"name": "x", "flow": {"kind": "relay", "url": "ws://x.org/s", "idleTimeoutSeconds": 0}}]}"#,
                "seconds"
            ),
            (#"{"rules": [{"name": "x", "flow": {"kind": "teleport"}}]}"#, "ton-activate, relay"),
        ]
        for (text, expected) in cases {
            let path = try temporaryFile(text)
            #expect {
                _ = try DaemonConfiguration(contentsOfFile: path, flowKinds: .standard)
            } throws: { error in
                "\(error)".contains(expected)
            }
        }
        #expect(throws: DaemonConfigurationError.self) {
            try DaemonConfiguration(contentsOfFile: "/nonexistent/cardd.json", flowKinds: .standard)
        }
    }

    @Test func flowsRoundTripThroughJSON() throws {
        let flows: [FlowSpecification] = [
            .report, .ndefRead, .ndefWrite(.text("hi")), .ndefWrite(.uri("https://x.org")),
            .apdus([[0x00, 0xB0, 0x00, 0x00, 0x10]], expect: nil), .iso15693Read(first: 2, count: 3),
            // Status words below 0x1000 need their leading zero (found by the control-line fuzz target).
            .apdus([[0x00, 0xB0, 0x00, 0x00, 0x10]], expect: 0x0900),
            .apdus([[0x00, 0xA4, 0x04, 0x00]], expect: 0x9000),
            .desfireProvision(
                DESFireProvisioningRule(
                    aid: [1, 2, 3], file: 1, size: 16, comm: "mac", keySlot: 2,
                    piccKeySlot: 3, data: [0xCA, 0xFE])),
            .tonActivate(TONActivationRule(activationSecret: "ton.activation.{serial}", pinSecret: "ton.pin")),
            .tonActivate(TONActivationRule(activationSecret: "ton.activation.shared")),
            .relay(
                RelayRule(
                    url: "wss://sync.example.com/sync", aids: [[0xD2, 0x76, 0x00, 0x00, 0x85, 0x01, 0x01]],
                    tokenSecret: "relay.token", caFile: "/etc/ca.pem", maxAPDUs: 50, idleTimeoutSeconds: 5)),
            .relay(RelayRule(url: "ws://127.0.0.1:9/sync")),
        ]
        for flow in flows {
            let data = try JSONEncoder().encode(flow)
            #expect(try DaemonFlowKinds.standard.decoder().decode(FlowSpecification.self, from: data) == flow)
        }
    }

    private func decode(_ text: String) throws -> DaemonConfiguration {
        try DaemonConfiguration(contentsOfFile: try temporaryFile(text), flowKinds: .standard)
    }

    private func temporaryFile(_ text: String) throws -> String {
        let path = NSTemporaryDirectory() + "cardd-config-\(UUID().uuidString).json"
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }
}
