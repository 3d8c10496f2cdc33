import CardFlowCCIDProtocol
import Testing

@testable import CardFlowTranscripts

/// The check: each transcript of the corpus replayed through CardFlow's driver.
///
/// A transcript either replays identically (every driver command accepted by the recording,
/// every operation ending as it did with pcscd) or is listed in ``ReplayExceptions`` with the
/// exact difference and why CardFlow's behaviour is valid; the test holds both to the letter.
@Suite("Transcript replay")
struct TranscriptReplayTests {
    static let replayable = TranscriptFixtures.names.filter { name in
        (try? TranscriptFixtures.transcript(name)).flatMap { try? TranscriptFixtures.descriptor(for: $0, named: name) }
            != nil
    }

    @Test("every transcript with a reader descriptor is replayed")
    func coverage() {
        let unreplayable = Set(TranscriptFixtures.names).subtracting(Self.replayable)
        #expect(unreplayable == ReplayExceptions.withoutDescriptor, "\(unreplayable)")
    }

    @Test("the driver's messages are accepted and the outcomes are pcscd's", arguments: replayable)
    func replay(name: String) async throws {
        let transcript = try TranscriptFixtures.transcript(name)
        let descriptor = try #require(try TranscriptFixtures.descriptor(for: transcript, named: name))
        let report = await TranscriptReplayCheck.run(transcript, descriptor: descriptor)
        let summary =
            report.results.map(\.description).joined(separator: "\n")
            + "\nmismatches: \(report.mismatches)\nstand-ins: \(report.standIns)"
        #expect(!report.results.isEmpty, "\(name): no operation")
        if ReplayExceptions.withoutAnswerToReset[name] != nil {
            #expect(report.matchedCommands == 0, "\(name)\n\(summary)")
            let first = try #require(report.mismatches.first, "\(name)\n\(summary)")
            #expect(first.received.first == 0x62, "\(name): the first mismatch is not the power-on\n\(summary)")
            #expect(first.position == ReplayPosition(segment: 0, command: 0, segmentLine: first.position.segmentLine))
            return
        }
        #expect(report.matchedCommands > 0, "\(name): no recorded command was replayed\n\(summary)")
        if let exception = ReplayExceptions.differences[name] {
            let differing = report.results.indices.filter { !report.results[$0].agrees }
            #expect(differing == exception.differingOperations, "\(name)\n\(summary)")
            for (index, outcome) in exception.cardFlowOutcomes where report.results.indices.contains(index) {
                #expect(report.results[index].outcome == outcome, "\(name) operation \(index)\n\(summary)")
            }
            #expect(report.mismatches.map(\.position) == exception.mismatchPositions, "\(name)\n\(summary)")
        } else {
            #expect(report.isIdentical, "\(name)\n\(summary)")
        }
    }
}
