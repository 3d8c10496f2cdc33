import Testing

@testable import CardFlow

@Suite struct CommandAPDUPropertyTests {
    /// Any valid command encodes to bytes that parse back to the same command, in both forms.
    @Test func randomCommandsRoundTrip() throws {
        var generator = SplitMix64(seed: 0x7816_0004)
        var seenCases = Set<CommandAPDU.ISOCase>()
        for _ in 0..<3_000 {
            let command = try Self.randomCommand(using: &generator)
            for forceExtended in [false, true] {
                let encoded = command.encoded(forceExtendedLength: forceExtended)
                let isoCase = command.isoCase(forceExtendedLength: forceExtended)
                seenCases.insert(isoCase)
                #expect(encoded.count == Self.expectedLength(of: command, isoCase: isoCase))
                #expect(try CommandAPDU(bytes: encoded) == command)
                if encoded.count <= 300 {
                    // Text parsing walks characters; large commands would only make the test slow.
                    #expect(try CommandAPDU(hex: encoded.spacedHexString) == command)
                }
            }
        }
        #expect(seenCases == Set(CommandAPDU.ISOCase.allCases))
    }

    /// Random bytes either fail with a typed error or parse to a command that encodes back to
    /// exactly those bytes: the parser accepts only canonical ISO 7816-4 encodings.
    @Test func randomBytesNeverCrashAndOnlyCanonicalEncodingsParse() {
        var generator = SplitMix64(seed: 0xBAD_C0DE)
        var parsedCount = 0
        var rejectedCount = 0
        for _ in 0..<20_000 {
            var bytes = [UInt8].random(count: Int.random(in: 0...40, using: &generator), using: &generator)
            // Small length bytes and a leading 00 make the interesting shapes common.
            if bytes.count > 4, Bool.random(using: &generator) { bytes[4] = UInt8.random(in: 0...8, using: &generator) }
            if bytes.count > 6, Bool.random(using: &generator) {
                bytes[5] = 0; bytes[6] = UInt8.random(in: 0...8, using: &generator)
            }
            do {
                let command = try CommandAPDU(bytes: bytes)
                parsedCount += 1
                #expect(command.encoded(forceExtendedLength: Self.isExtendedEncoding(bytes)) == bytes)
            } catch {
                rejectedCount += 1
            }
        }
        #expect(parsedCount > 1_000)
        #expect(rejectedCount > 1_000)
    }

    /// Every body of up to 5 bytes over a small alphabet: same property, exhaustively.
    @Test func shortBodiesExhaustively() {
        let alphabet: [UInt8] = [0x00, 0x01, 0x02, 0x03, 0xFF]
        var bodies: [[UInt8]] = [[]]
        var frontier: [[UInt8]] = [[]]
        for _ in 1...5 {
            frontier = frontier.flatMap { body in alphabet.map { body + [$0] } }
            bodies += frontier
        }
        var parsedCount = 0
        for body in bodies {
            let bytes: [UInt8] = [0x00, 0xCA, 0x00, 0x00] + body
            guard let command = try? CommandAPDU(bytes: bytes) else { continue }
            parsedCount += 1
            #expect(command.encoded(forceExtendedLength: Self.isExtendedEncoding(bytes)) == bytes)
        }
        #expect(parsedCount > 0)
    }

    private static func randomCommand(using generator: inout SplitMix64) throws -> CommandAPDU {
        let dataCount: Int
        switch Int.random(in: 0..<10, using: &generator) {
        case 0...2: dataCount = 0
        case 3...7: dataCount = Int.random(in: 1...255, using: &generator)
        case 8: dataCount = Int.random(in: 256...1_024, using: &generator)
        default: dataCount = [256, 4_096].randomElement(using: &generator)!
        }
        let le: Int?
        switch Int.random(in: 0..<4, using: &generator) {
        case 0: le = nil
        case 1: le = Int.random(in: 1...256, using: &generator)
        case 2: le = Int.random(in: 257...65_536, using: &generator)
        default: le = [1, 255, 256, 257, 65_535, 65_536].randomElement(using: &generator)!
        }
        return try CommandAPDU(
            cla: .random(in: .min ... .max, using: &generator),
            ins: .random(in: .min ... .max, using: &generator),
            p1: .random(in: .min ... .max, using: &generator),
            p2: .random(in: .min ... .max, using: &generator),
            data: .random(count: dataCount, using: &generator),
            le: le
        )
    }

    /// Length of an encoding, computed from the ISO case independently of the encoder.
    private static func expectedLength(of command: CommandAPDU, isoCase: CommandAPDU.ISOCase) -> Int {
        let nc = command.data.count
        switch isoCase {
        case .case1: return 4
        case .case2Short: return 5
        case .case3Short: return 5 + nc
        case .case4Short: return 6 + nc
        case .case2Extended: return 7
        case .case3Extended: return 7 + nc
        case .case4Extended: return 9 + nc
        }
    }

    /// Whether bytes use extended length fields: the body starts with 00 and has 3 or more bytes.
    private static func isExtendedEncoding(_ bytes: [UInt8]) -> Bool {
        bytes.count >= 7 && bytes[4] == 0x00
    }
}
