import CardFlowSimulator
import Testing

@testable import CardFlowTranscripts

/// Hostile input: random bytes, random hex, and real lines cut, spliced and mangled. The parser
/// must end, never trap, and keep only whole CCID messages.
@Suite("TranscriptParser with garbage")
struct TranscriptParserFuzzTests {
    static let pieces = [
        "-> ", "<- ", "000000 ", "000001 ", "6F ", "80 ", "0A ", "00 ", "FF ", "APDU: ", "SW: ", "sending: ",
        "received: ", "Card ATR: ", "NotifySlotChange: ", "# --- gap", "# reader: X 072F:2200", "# atr: ZZ",
        "\u{1B}[", "31m", "[0;32m", "> ", "| ", "pcscd[12]: ", "00000012 ", "[1400] ", "LIBUSB_ERROR_TIMEOUT",
        "write failed", "Card absent or mute", "usb:072f/2200:", "Found Vendor/Product: 04E6/", "\t", " ", "\r",
        "é", "🙂", "#", ":", "\u{0}",
    ]

    @Test("random lines of pieces, random bytes and mangled real lines", arguments: 0..<64)
    func garbage(seed: UInt64) {
        var random = SeededRandom(seed: seed)
        var lines: [String] = []
        for _ in 0..<Int.random(in: 1...200, using: &random) {
            switch Int.random(in: 0..<3, using: &random) {
            case 0:
                lines.append(
                    (0..<Int.random(in: 0...12, using: &random)).map { _ in Self.pieces.randomElement(using: &random)! }
                        .joined())
            case 1:
                let scalars = (0..<Int.random(in: 0...80, using: &random)).compactMap { _ in
                    Unicode.Scalar(UInt32.random(in: 0...0x2FF, using: &random))
                }
                lines.append(String(String.UnicodeScalarView(scalars)))
            default:
                var line = Array(
                    TranscriptParserTests.omnikeyLines.split(separator: "\n").randomElement(using: &random)!)
                if !line.isEmpty {
                    let cut = Int.random(in: 0..<line.count, using: &random)
                    line[cut] = Character(Unicode.Scalar(UInt8.random(in: 0x20...0x7E, using: &random)))
                    if Bool.random(using: &random) {
                        line.removeLast(Int.random(in: 0...min(10, line.count), using: &random))
                    }
                }
                lines.append(String(line))
            }
        }
        let text = lines.joined(separator: Bool.random(using: &random) ? "\n" : "\r\n")
        // Random scalars may hold line ends of their own: count the lines the text has.
        let lineCount = text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).count
        do {
            let transcript = try TranscriptParser.parse(text)
            for frame in transcript.segments.flatMap(\.frames) {
                #expect(frame.bytes.count == 10 + RecordedFrame.declaredLength(frame.bytes))
                #expect(frame.messageType.isCommand == (frame.direction == .bulkOut))
            }
            #expect(transcript.problems.allSatisfy { $0.line >= 1 && $0.line <= lineCount })
        } catch {
            // Refusing a text with nothing in it is an answer too; it must be the typed one.
            #expect(error == .noConversation(lines: lineCount))
        }
    }
}
