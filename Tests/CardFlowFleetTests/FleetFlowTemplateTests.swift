import CardFlowDaemon
import CardFlowDaemonControl
import CardFlowDaemonFlows
import Foundation
import Testing

@Suite struct FleetFlowTemplateTests {
    func template(_ json: String) throws -> FlowSpecification {
        try DaemonFlowKinds.standard.decoder().decode(FlowSpecification.self, from: Data(json.utf8))
    }

    @Test func recordParametersCompleteTheTemplate() throws {
        guard
            let template = try template(
                #"{"kind": "fleet", "flow": {"kind": "desfire-provision", "aid": "F01020", "file": 1, "size": 32, "keySlot": 2}}"#
            ).flow(as: FleetFlowTemplate.self)
        else {
            Issue.record("not a fleet flow")
            return
        }
        let merged = try template.specification(for: Array(#"{"text": "Alice", "file": 3}"#.utf8))
        guard let rule = merged.flow(as: DESFireProvisioningRule.self) else {
            Issue.record("merged into \(merged.kind)")
            return
        }
        #expect(rule.data == Array("Alice".utf8))
        #expect(rule.file == 3)
        #expect(rule.aid == [0xF0, 0x10, 0x20])
        #expect(rule.keySlot == 2)
    }

    @Test func aRecordCannotChangeTheKind() throws {
        guard
            let template = try template(#"{"kind": "fleet", "flow": {"kind": "ndef-write"}}"#).flow(
                as: FleetFlowTemplate.self)
        else {
            Issue.record("not a fleet flow")
            return
        }
        let merged = try template.specification(for: Array(#"{"kind": "apdu", "uri": "https://example.com"}"#.utf8))
        #expect(merged == .ndefWrite(.uri("https://example.com")))
    }

    @Test func invalidRecordsAreTyped() throws {
        guard
            let template = try template(
                #"{"kind": "fleet", "flow": {"kind": "desfire-provision", "aid": "F01020", "file": 1, "size": 4, "keySlot": 2}}"#
            ).flow(as: FleetFlowTemplate.self)
        else {
            Issue.record("not a fleet flow")
            return
        }
        for record in [#"[1]"#, #"{"text": "longer than four"}"#, #"{"aid": "zz"}"#, "not json"] {
            #expect {
                try template.specification(for: Array(record.utf8))
            } throws: { error in
                if case .invalidFleetRecord = error as? DaemonFlowError { return true }
                return false
            }
        }
    }

    @Test(arguments: [
        #"{"kind": "fleet", "flow": {"kind": "apdu"}}"#, #"{"kind": "fleet", "flow": {"kind": "fleet"}}"#,
        #"{"kind": "fleet", "flow": "ndef-write"}"#, #"{"kind": "fleet"}"#,
    ])
    func templatesOfOtherKindsAreRefused(json: String) {
        #expect(throws: DecodingError.self) { try template(json) }
    }

    @Test func aFleetRuleNeedsTheFleetBlock() throws {
        let rules = #"[{"name": "badges", "flow": {"kind": "fleet", "flow": {"kind": "ndef-write"}}}]"#
        #expect(throws: DecodingError.self) {
            try DaemonFlowKinds.standard.decoder().decode(
                DaemonConfiguration.self, from: Data(#"{"rules": \#(rules)}"#.utf8))
        }
        let configuration = try DaemonFlowKinds.standard.decoder().decode(
            DaemonConfiguration.self,
            from: Data(
                #"{"rules": \#(rules), "fleet": {"postgres": "/run/postgresql", "batch": "b", "hostName": "h1"}}"#.utf8)
        )
        #expect(configuration.fleet?.leaseSeconds == 60)
        #expect(configuration.fleet?.hostName == "h1")
        // Round trip: what cardd writes back is what it reads.
        let again = try DaemonFlowKinds.standard.decoder().decode(
            DaemonConfiguration.self, from: JSONEncoder().encode(configuration))
        #expect(again == configuration)
    }

    @Test(arguments: [
        #"{"postgres": "/x", "batch": ""}"#, #"{"postgres": "/x", "batch": "b", "leaseSeconds": 1}"#,
        #"{"postgres": "/x", "batch": "b", "pollSeconds": 0}"#, #"{"batch": "b"}"#,
    ])
    func badFleetSettingsAreRefused(json: String) {
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(FleetSettings.self, from: Data(json.utf8)) }
    }
}
