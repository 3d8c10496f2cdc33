/// A real card's recorded conversation played back as a simulated card: the card answers each
/// command the ``APDURecording`` expects next with the response recorded for it, so a client
/// meets bytes a real card produced, not bytes a model of ours computed.
///
/// Rules:
/// - Commands are matched in order, byte for byte, from the recording's first exchange; the
///   position survives power-on (a recording may span several connections).
/// - A command that is not the one expected next (or comes after the last exchange) is a
///   ``RecordedConversationMismatch`` with both APDUs and the position. The card never makes up
///   a status word for it: from then on it stays mute (an empty answer, which the simulated
///   reader reports as a mute card) and ``mismatch`` keeps the first divergence.
/// - PC/SC part 3 pseudo-APDUs (`CLA FF`) whose instruction occurs in the recording are the
///   recording's (its reader answered them); other `FF` instructions are the simulated
///   reader's, as with any card (GET DATA `FF CA` reports the recording's `# uid:`, no bytes
///   without one).
///
/// ```swift
/// let card = try RecordedConversationCard(recording: APDURecording(contentsOfFile: "desfire-getversion.apdu"))
/// await virtualReader.insert(card)
/// // … drive a client through the reader …
/// if let mismatch = (await virtualReader.card() as? RecordedConversationCard)?.mismatch { print(mismatch) }
/// ```
public struct RecordedConversationCard: DivergenceReportingVirtualCard, Hashable {
    /// The conversation being replayed.
    public let recording: APDURecording
    /// How many exchanges have been played.
    public private(set) var position = 0
    /// The first command the recording did not expect, if any.
    public private(set) var mismatch: RecordedConversationMismatch?

    public init(recording: APDURecording) {
        self.recording = recording
        readerPassThroughInstructions = Set(
            recording.exchanges.compactMap { $0.command.count >= 2 && $0.command[0] == 0xFF ? $0.command[1] : nil })
    }

    /// `"apdu-replay"`.
    public var kind: String { "apdu-replay" }

    /// The recording's technology (`# ats:`, `# atr:` or `# storage:`).
    public var technology: ContactlessTechnology { recording.technology }

    /// The recording's `# uid:`; empty without one.
    public var uid: [UInt8] { recording.uid ?? [] }

    /// The `FF` instructions the recording holds answers for.
    public let readerPassThroughInstructions: Set<UInt8>

    /// The first mismatch, for the reader to report beside the mute card.
    public var divergence: (any Error & Sendable)? { mismatch }

    /// Whether every recorded exchange has been played without a mismatch.
    public var isComplete: Bool { mismatch == nil && position == recording.exchanges.count }

    /// Nothing volatile to clear: the conversation goes on where it was.
    public mutating func powerOn() {}

    public mutating func process(_ command: [UInt8]) -> [UInt8] {
        guard mismatch == nil else { return [] }
        guard position < recording.exchanges.count else {
            mismatch = RecordedConversationMismatch(
                position: position, expected: nil, received: command, source: recording.source)
            return []
        }
        let exchange = recording.exchanges[position]
        guard exchange.command == command else {
            mismatch = RecordedConversationMismatch(
                position: position, expected: exchange.command, received: command, source: recording.source)
            return []
        }
        position += 1
        return exchange.response
    }
}
