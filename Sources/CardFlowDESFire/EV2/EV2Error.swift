import CardFlow
import CardFlowCrypto

/// Errors of the EV2 secure channel: authentication, secure messaging and ChangeKey cryptograms.
///
/// Every error about an exchange names the instruction it happened in and, where the card answered,
/// the status word it answered with. After any error but ``invalidArgument(_:)`` the session is of no
/// further use: the card drops its authentication on an error status, and a MAC that does not verify
/// means the answer cannot be trusted. Authenticate again.
///
/// ```swift
/// do { data = try session.verifyResponse(response, to: .readData, mode: .enciphered) }
/// catch EV2Error.cardStatus(.permissionDenied, let instruction) { … }
/// catch EV2Error.integrityCheckFailed(let instruction, let statusWord, let reason) { … }
/// ```
public enum EV2Error: Error, Sendable, Equatable, CustomStringConvertible {
    /// The card answered `91 xx` with an error status (anything but `00`, and `AF` where no further
    /// frame was due).
    case cardStatus(DESFireStatus, instruction: EV2Instruction)
    /// The answer did not end in `91 xx` (for example `6A 82` from a card that is not in native mode).
    case unexpectedStatusWord(StatusWord, instruction: EV2Instruction)
    /// The answer has the wrong length or shape for the instruction.
    case malformedResponse(instruction: EV2Instruction, statusWord: StatusWord, reason: String)
    /// The answer's MAC did not verify, or its deciphered padding is wrong: forged, garbled, or for
    /// another command counter.
    case integrityCheckFailed(instruction: EV2Instruction, statusWord: StatusWord, reason: String)
    /// The card's RndA' is not our RndA rotated: it does not know the key (or the answer is garbled).
    case authenticationFailed(keyNumber: UInt8, instruction: EV2Instruction, statusWord: StatusWord)
    /// The 16-bit command counter is at `FFFF`: the answer would need counter `10000`, so no further
    /// command can be sent in this transaction. Authenticate with ``EV2Authentication/first(keyNumber:key:rndA:pcdCapabilities:)``.
    case commandCounterExhausted(instruction: EV2Instruction)
    /// A caller-supplied argument is out of range (checked before anything is computed).
    case invalidArgument(String)
    /// A cryptographic primitive rejected its input.
    case crypto(CardCryptoError)

    /// The DESFire status byte, when the card answered with an error status.
    public var status: DESFireStatus? {
        if case .cardStatus(let status, _) = self { return status }
        return nil
    }

    public var description: String {
        switch self {
        case .cardStatus(let status, let instruction): "\(instruction) failed: card status \(status)"
        case .unexpectedStatusWord(let word, let instruction):
            "\(instruction): unexpected status word \(word.hexString) (not a native DESFire answer)"
        case .malformedResponse(let instruction, let word, let reason):
            "\(instruction) answered \(word.hexString): malformed answer: \(reason)"
        case .integrityCheckFailed(let instruction, let word, let reason):
            "\(instruction) answered \(word.hexString): integrity check failed: \(reason)"
        case .authenticationFailed(let keyNumber, let instruction, let word):
            "\(instruction) with key \(keyNumber) answered \(word.hexString): the card's RndA' does not match"
        case .commandCounterExhausted(let instruction):
            "\(instruction): the command counter is exhausted; authenticate again"
        case .invalidArgument(let reason): "invalid argument: \(reason)"
        case .crypto(let error): "cryptographic failure: \(error)"
        }
    }
}

/// Runs `body`, turning a ``CardCryptoError`` into ``EV2Error/crypto(_:)``.
func ev2Crypto<T>(_ body: () throws(CardCryptoError) -> T) throws(EV2Error) -> T {
    do { return try body() } catch { throw .crypto(error) }
}
