/// A misbehaviour the simulated reader shows on demand, to test that the driver and the layers
/// above recover with typed errors instead of crashing or hanging.
public enum ReaderFault: Sendable, Hashable {
    /// The next card exchange is preceded by `count` time-extension frames (bStatus 0x80,
    /// bError = multiplier).
    case timeExtensions(count: Int, multiplier: UInt8)
    /// The next card exchange never completes: the reader sends a time-extension frame every
    /// `interval`, without end, until the host aborts the command or sends another one.
    case timeExtensionStorm(interval: Duration, multiplier: UInt8)
    /// The next card exchange fails with ICC_MUTE while the card stays present.
    case iccMute
    /// The next command fails with HW_ERROR, and an interrupt HardwareError message is queued.
    case hardwareError
    /// The next bulk-IN read stalls.
    case stall
    /// The next response is cut short (its dwLength promises more than arrives).
    case shortResponse
    /// The next response is replaced by random bytes (from the reader's seed).
    case garbledResponse
    /// A stale frame carrying the previous bSeq arrives before the next response.
    case staleFrame
    /// The next response carries a wrong bSeq (the right one never comes).
    case wrongSequence
    /// The next response carries a random bSeq (from the reader's seed), possibly the right one.
    case randomSequence
    /// The next response arrives twice; the copy is a stale frame in front of the answer to the
    /// command after it.
    case duplicateResponse
    /// The next response is longer than the reader's dwMaxCCIDMessageLength allows, and than
    /// the host's read buffer (its dwLength matches the bytes).
    case oversizedResponse
    /// The next response keeps its bytes but its dwLength says `declared` (0 and 0xFFFFFFFF are
    /// the interesting extremes).
    case lengthFieldMismatch(declared: UInt32)
    /// An empty bulk-IN transfer (a zero-length packet, no message) comes before the next response.
    case emptyTransfer
    /// The next command gets no answer at all.
    case noResponse
    /// The reader is unplugged when the next command arrives.
    case unplug
    /// Queued at once on the interrupt endpoint: a message of a type CCID does not define (0x5F).
    case unknownInterruptMessage
    /// Queued at once on the interrupt endpoint: a NotifySlotChange cut to its type byte.
    case shortInterruptMessage
    /// TPDU readers: the card asks for a T=1 waiting time extension (S(WTX) request) before
    /// its next answer.
    case cardWaitingTimeExtension(multiplier: UInt8)
    /// TPDU readers: the card answers every granted S(WTX) with another S(WTX request), one
    /// every `interval`, without end, until the host aborts or resynchronises.
    case waitingTimeExtensionStorm(interval: Duration, multiplier: UInt8)
    /// TPDU and character-level readers: the next T=1 block from the card has a bad checksum
    /// (its last EDC byte flipped).
    case corruptT1Block
    /// Character-level readers: the card's next characters on the I/O line slip this way.
    case characterLine(CharacterLineFault)

    /// True for the faults that go to the interrupt endpoint at once instead of waiting for a
    /// command.
    var isInterruptMessage: Bool {
        switch self {
        case .unknownInterruptMessage, .shortInterruptMessage: true
        default: false
        }
    }
}
