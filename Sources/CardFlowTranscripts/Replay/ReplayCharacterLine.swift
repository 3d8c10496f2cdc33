import CardFlowCCIDProtocol

/// A run of recorded XfrBlocks at character level as the card's I/O line: the bytes the host
/// sent to the card, in order, and the characters the card sent back, each with how many host
/// bytes had gone out before the reader handed it over.
///
/// At character level a host chooses how it cuts the line into XfrBlocks (wLevelParameter: how
/// many characters to wait for), and two correct hosts cut it differently: libccid reads a T=1
/// block's prologue, then the rest; CardFlow the prologue with the EDC, then the rest; after a
/// T=0 command's data libccid waits for one procedure byte, CardFlow for SW1 SW2. What both must
/// do alike is what crosses the line: the same bytes to the card, in order, and no wait for a
/// character the card sends only after more input. So the replay serves a character-level host
/// from the stream, not message by message.
struct ReplayCharacterLine: Sendable {
    /// The bytes the host sent to the card, in order.
    private(set) var hostBytes: [UInt8] = []
    /// The card's characters, in order.
    private(set) var cardBytes: [UInt8] = []
    /// For each of the card's characters, the host bytes sent before it was handed over.
    private(set) var availableAfter: [Int] = []
    /// The recorded step after the run.
    let endStep: Int
    /// The run's first step, and for each of its steps the host bytes sent before it.
    private let startStep: Int
    private var hostOffsets: [Int] = []

    /// How far the host has got.
    private(set) var hostPosition = 0
    private(set) var cardPosition = 0

    /// The run of XfrBlocks starting at `start` in `steps`, up to the first step that is no
    /// XfrBlock or holds something a stream cannot stand for (an answer other than a plain
    /// DataBlock, a time-out, chaining: matched message by message); nil when there is none.
    init?(steps: [ReplayScript.Step], from start: Int) {
        var index = start
        var sent = 0
        while index < steps.count, steps[index].command.messageType == .xfrBlock {
            let step = steps[index]
            guard step.ending == .answered, let answer = step.answers.last(where: { !Self.isTimeExtension($0) }),
                answer.bytes[0] == CCIDMessageType.dataBlock.rawValue,
                CCIDSlotState(rawValue: answer.bytes[7]).command == .processed, answer.bytes[9] == 0
            else { break }
            hostOffsets.append(sent)
            hostBytes += step.command.payload
            sent += step.command.payload.count
            cardBytes += answer.payload
            availableAfter += Array(repeating: sent, count: answer.payload.count)
            index += 1
        }
        guard index > start else { return nil }
        startStep = start
        endStep = index
    }

    /// The recorded step that sends the host's next byte: where the recording stands when the
    /// host leaves the line (the run's end when the host has sent everything).
    var currentStep: Int {
        let ends = hostOffsets.indices.map { $0 + 1 < hostOffsets.count ? hostOffsets[$0 + 1] : hostBytes.count }
        let holding = hostOffsets.indices.first { hostOffsets[$0] <= hostPosition && hostPosition < ends[$0] }
        guard let index = holding else { return endStep }
        return startStep + index
    }

    /// True once the host has sent every recorded byte and read every character.
    var isUsedUp: Bool { hostPosition == hostBytes.count && cardPosition == cardBytes.count }

    /// The host's XfrBlock `message` on the line: its bytes must be the next the recording sent,
    /// and the characters it waits for (wLevelParameter) must be ones the card had sent by then.
    /// Returns the DataBlock that answers it, nil when the recording does not bear it out.
    mutating func serve(_ message: [UInt8]) -> [UInt8]? {
        guard message.count >= ccidHeaderLength, message[0] == CCIDMessageType.xfrBlock.rawValue else { return nil }
        let payload = message[ccidHeaderLength...]
        let sentEnd = hostPosition + payload.count
        guard sentEnd <= hostBytes.count, hostBytes[hostPosition..<sentEnd].elementsEqual(payload) else { return nil }
        let wanted = Int(message[8]) | Int(message[9]) << 8
        let readEnd = cardPosition + wanted
        guard readEnd <= cardBytes.count, availableAfter[cardPosition..<readEnd].allSatisfy({ $0 <= sentEnd }) else {
            return nil
        }
        hostPosition = sentEnd
        let characters = Array(cardBytes[cardPosition..<readEnd])
        cardPosition = readEnd
        return CCIDResponse(
            slot: message[5], sequence: message[6], state: CCIDSlotState(icc: .presentActive, command: .processed),
            kind: .dataBlock(chainParameter: 0, data: characters)
        ).encoded()
    }

    private static func isTimeExtension(_ frame: RecordedFrame) -> Bool {
        CCIDSlotState(rawValue: frame.bytes[7]).command == .timeExtension
    }
}
