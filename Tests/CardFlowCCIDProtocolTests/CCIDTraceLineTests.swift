import Testing

@testable import CardFlowCCIDProtocol

/// The driver's trace line for each message it sends, written into one string by hand: checked
/// against the same line built with ordinary string interpolation.
@Suite("CCID trace line")
struct CCIDTraceLineTests {
    @Test func matchesTheInterpolatedLine() {
        #expect(CCIDTraceLine.sent(.xfrBlock, sequence: 7, length: 15) == "CCID > PC_to_RDR_XfrBlock seq 7, 15 bytes")
        for type in CCIDMessageType.allCases {
            for (sequence, length) in [
                (0, 0), (9, 10), (10, 9), (99, 100), (255, 65_554), (128, Int.max), (1, Int.min),
            ] {
                #expect(
                    CCIDTraceLine.sent(type, sequence: UInt8(sequence), length: length)
                        == "CCID > \(type) seq \(sequence), \(length) bytes")
            }
        }
    }
}
