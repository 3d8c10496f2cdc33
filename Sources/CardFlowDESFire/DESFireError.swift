import CardFlow
import CardFlowCrypto

/// Errors of the DESFire client. Every case names the command it happened in.
///
/// ```swift
/// do { try await client.readData(file: 1) }
/// catch DESFireError.cardStatus(.permissionDenied, let command) { … }
/// ```
public enum DESFireError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The card answered `91 xx` with an error status (any status but `00` and `AF`).
    case cardStatus(DESFireStatus, command: DESFireCommand)
    /// The answer did not end with `91 xx` (for example `6A 82` from a card that is no DESFire).
    case unexpectedStatusWord(StatusWord, command: DESFireCommand)
    /// The answer is shorter or longer than the command allows, or otherwise not what it should be.
    case malformedResponse(command: DESFireCommand, reason: String)
    /// The response's MAC/CMAC or CRC did not verify: the answer may be forged or garbled.
    /// The session is dropped.
    case integrityCheckFailed(command: DESFireCommand, reason: String)
    /// The card's RndA' did not match: the card does not know the key (or the answer is garbled).
    case authenticationFailed(keyNumber: UInt8, reason: String)
    /// The operation needs an authenticated session and there is none.
    case notAuthenticated(command: DESFireCommand)
    /// A caller-supplied argument is out of range (checked before anything is sent).
    case invalidArgument(String)
    /// A cryptographic primitive rejected its input.
    case crypto(CardCryptoError)
    /// Data read back differs from the data written.
    case verificationFailed(file: UInt8, reason: String)
    /// The EV2 command counter is at `FFFF`: no further command fits this transaction.
    /// Authenticate again (AuthenticateEV2First starts a new one).
    case commandCounterExhausted(command: DESFireCommand)

    /// The DESFire status byte, when the card answered with one.
    public var status: DESFireStatus? {
        if case .cardStatus(let status, _) = self { return status }
        return nil
    }

    public var description: String {
        switch self {
        case .cardStatus(let status, let command): "\(command) failed: card status \(status)"
        case .unexpectedStatusWord(let word, let command):
            "\(command): unexpected status word \(word.hexString) (not a DESFire answer)"
        case .malformedResponse(let command, let reason): "\(command): malformed answer: \(reason)"
        case .integrityCheckFailed(let command, let reason): "\(command): integrity check failed: \(reason)"
        case .authenticationFailed(let key, let reason): "authentication with key \(key) failed: \(reason)"
        case .notAuthenticated(let command): "\(command) needs an authenticated session"
        case .invalidArgument(let reason): "invalid argument: \(reason)"
        case .crypto(let error): "cryptographic failure: \(error)"
        case .verificationFailed(let file, let reason): "file \(file): read-back verification failed: \(reason)"
        case .commandCounterExhausted(let command):
            "\(command): the EV2 command counter is exhausted; authenticate again"
        }
    }
}

/// Runs `body`, turning a ``CardCryptoError`` into ``DESFireError/crypto(_:)``.
func crypto<T>(_ body: () throws(CardCryptoError) -> T) throws(DESFireError) -> T {
    do { return try body() } catch { throw .crypto(error) }
}
