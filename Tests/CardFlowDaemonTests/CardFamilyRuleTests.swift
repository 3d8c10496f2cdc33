import CardFlow
import CardFlowDESFire
import CardFlowDaemon
import CardFlowDaemonControl
import CardFlowDaemonFlows
import CardFlowDaemonTestSupport
import CardFlowISO15693
import CardFlowNDEF
import CardFlowTONCard
import Foundation
import Testing

/// Rules that match on a card family: the daemon runs the detectors its program links, and only
/// when some rule asks.
@Suite struct CardFamilyRuleTests {
    static let families = CardFamilyDetection([
        ISO15693FamilyDetector(), TONFamilyDetector(), DESFireFamilyDetector(), NDEFFamilyDetector(),
    ])

    @Test func aFamilyRuleTakesItsFamilyAndLeavesOtherCardsToTheNextRule() async throws {
        let configuration = DaemonConfiguration(
            readers: ["sim:desfire", "sim:iso7816"],
            rules: [
                CardRule(name: "desfire-cards", match: CardMatch(family: "desfire"), flow: .report),
                CardRule(name: "any-other", flow: .report),
            ])
        try await DaemonHarness.run(configuration: configuration, cardFamilies: Self.families) { harness in
            let desfire = try await harness.waitForJob { $0.reader == "sim:0" && $0.state == .succeeded }
            let other = try await harness.waitForJob { $0.reader == "sim:1" && $0.state == .succeeded }
            #expect(desfire.rule == "desfire-cards")
            #expect(other.rule == "any-other")
        }
    }

    @Test func aRuleNamingAFamilyNoDetectorKnowsStopsTheStart() async throws {
        let configuration = DaemonConfiguration(
            readers: ["sim:iso7816"],
            rules: [CardRule(name: "felica", match: CardMatch(family: "felica"), flow: .report)])
        await #expect(throws: DaemonConfigurationError.self) {
            try await DaemonHarness.run(configuration: configuration, cardFamilies: Self.families) { _ in
                Issue.record("the daemon started with a rule it cannot apply")
            }
        }
    }

    @Test func theFamilyConditionIsReadAndWrittenInTheConfigurationFile() throws {
        let json = #"{"name": "d", "match": {"family": "desfire", "uidLength": 7}, "flow": {"kind": "report"}}"#
        let rule = try DaemonFlowKinds.standard.decoder().decode(CardRule.self, from: Data(json.utf8))
        #expect(rule.match == CardMatch(uidLength: 7, family: "desfire"))
        let facts = CardFacts(atr: [0x3B], uid: Array(repeating: 1, count: 7), family: "desfire")
        #expect(rule.match.matches(facts))
        var other = facts
        other.family = "ton"
        #expect(!rule.match.matches(other))
        let again = try DaemonFlowKinds.standard.decoder().decode(
            CardRule.self, from: try JSONEncoder().encode(rule))
        #expect(again.match == rule.match)
    }
}
