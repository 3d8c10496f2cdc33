/// One thing a pcscd + libccid log recorded, in log order.
public enum TranscriptEvent: Sendable, Hashable {
    /// A CCID message on a bulk pipe.
    case frame(RecordedFrame)
    /// An interrupt-IN message (libccid's `NotifySlotChange: 50 03`).
    case interrupt([UInt8])
    /// A command APDU the application sent (pcscd's `APDU:` line with `--apdu`).
    case commandAPDU([UInt8])
    /// What pcscd returned for the last command APDU (its `SW:` line: response data and status
    /// word; empty when the reader or card failed).
    case responseAPDU([UInt8])
    /// A T=1 block libccid sent (`sending:`).
    case t1Sent([UInt8])
    /// A T=1 block libccid received (`received:`).
    case t1Received([UInt8])
    /// The ATR pcscd reported (`Card ATR:`).
    case answerToReset([UInt8])
    /// An error pcscd or libccid logged.
    case failure(TranscriptFailure)
}
