import CardFlow

/// Errors of ``NTAG424Client``. Each names the instruction it happened in and, where the card
/// answered, its status.
///
/// ```swift
/// do { try await tag.writeData(file: .ndef, offset: 0, data: message) }
/// catch NTAG424Error.secureMessaging(.cardStatus(.permissionDenied, let instruction)) { … }
/// ```
public enum NTAG424Error: Error, Sendable, Equatable, CustomStringConvertible {
    /// Authentication, secure messaging or a native status: the EV2 layer's error, with the
    /// instruction and status word. The session is closed (the card drops it too).
    case secureMessaging(EV2Error)
    /// An ISO 7816 command (ISOSelectFile, ISOReadBinary, ISOUpdateBinary) did not end in `90 00`.
    case isoStatus(StatusWord, instruction: String)
    /// The command needs an authenticated session and there is none.
    case notAuthenticated(instruction: EV2Instruction)
    /// A GetFileSettings answer (or settings to send) that does not follow the data sheet.
    case malformedFileSettings(String)
    /// An answer of the wrong length or shape.
    case malformedResponse(instruction: EV2Instruction, reason: String)
    /// LRP (leakage-resilient primitive) mode is not implemented: switching a tag to it is
    /// permanent and would lock this client out of the tag, so it is refused before anything is sent.
    case lrpNotSupported
    /// A caller-supplied argument is out of range (checked before anything is sent).
    case invalidArgument(String)
    /// After personalisation the tag's SUN output did not check out (no URL, or a message that
    /// does not verify with the new keys or names another UID).
    case personalisationCheckFailed(String)

    public var description: String {
        switch self {
        case .secureMessaging(let error): "\(error)"
        case .isoStatus(let word, let instruction): "\(instruction) failed with status \(word.hexString)"
        case .notAuthenticated(let instruction): "\(instruction) needs an authenticated session"
        case .malformedFileSettings(let reason): "malformed file settings: \(reason)"
        case .malformedResponse(let instruction, let reason): "\(instruction): malformed answer: \(reason)"
        case .lrpNotSupported:
            "LRP mode is not supported by this client; enabling it is permanent, so CardFlow refuses to send it"
        case .invalidArgument(let reason): "invalid argument: \(reason)"
        case .personalisationCheckFailed(let reason): "the personalised tag's SUN output does not check out: \(reason)"
        }
    }
}
