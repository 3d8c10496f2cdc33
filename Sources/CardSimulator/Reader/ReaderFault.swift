/// A misbehaviour the simulated reader shows on demand, to test that the driver and the layers
/// above recover with typed errors instead of crashing or hanging.
public enum ReaderFault: Sendable, Hashable {
    /// The next card exchange is preceded by `count` time-extension frames (bStatus 0x80,
    /// bError = multiplier).
    case timeExtensions(count: Int, multiplier: UInt8)
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
    /// The next command gets no answer at all.
    case noResponse
    /// The reader is unplugged when the next command arrives.
    case unplug
    /// TPDU readers: the card asks for a T=1 waiting time extension (S(WTX) request) before
    /// its next answer.
    case cardWaitingTimeExtension(multiplier: UInt8)
    /// TPDU readers: the next T=1 block from the card has a bad checksum.
    case corruptT1Block
}
