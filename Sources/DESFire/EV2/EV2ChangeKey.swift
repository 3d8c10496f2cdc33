import CardCrypto
import CardFlow

/// ChangeKey (`C4`) in an EV2 session: the key data cryptogram and the answer rules
/// (NT4H2421Gx §10.6.1, AN12196 §5.16).
///
/// The key data travel in CommMode.Full behind the header `KeyNo`:
///
/// - **Another key** than the session's (case 1, AN12196 Table 25):
///   `(NewKey ⊕ OldKey) ‖ KeyVer ‖ CRC32NK`, 21 bytes, where CRC32NK is the DESFire CRC32 of the
///   new key alone (CRC-32/JAMCRC, least significant byte first). The answer carries a MACt.
/// - **The session's own key** (case 2, AN12196 Table 26): `NewKey ‖ KeyVer`, 17 bytes, no XOR and
///   no CRC — authenticating with the old key proved it is known. The card answers a bare `91 00`
///   and the session ends: authenticate with the new key.
///
/// The key version is a byte of its own; it is never XORed. Key numbers compare on their low six
/// bits, so a DESFire PICC-level key number with key-type bits in bits 7–6 still matches.
///
/// ```swift
/// let change = try EV2ChangeKey(keyNumber: 2, newKey: newKey, oldKey: oldKey, session: session)
/// let answer = try await channel.transmit(try change.command(in: session))
/// if let next = try change.verifyResponse(answer, in: session) { session = next }   // nil: authenticate again
/// ```
public struct EV2ChangeKey: Sendable {
    /// The key number sent as CmdHeader.
    public let keyNumber: UInt8
    /// The plaintext before padding: 21 bytes for another key, 17 for the session's own.
    public let keyData: [UInt8]
    /// Whether this changes the key the session was authenticated with (case 2).
    public let changesAuthenticationKey: Bool

    /// Builds the key data for changing key `keyNumber` to `newKey` in `session`.
    ///
    /// - Parameters:
    ///   - keyNumber: the key to change.
    ///   - newKey: its new value and version.
    ///   - oldKey: the key's current value; needed when it is not the session's key.
    ///   - session: the authenticated EV2 session the command runs in.
    /// - Throws: ``EV2Error/invalidArgument(_:)`` for a key that is not AES, or for a missing old key.
    public init(keyNumber: UInt8, newKey: DESFireKey, oldKey: DESFireKey? = nil, session: EV2Session) throws(EV2Error) {
        guard newKey.type == .aes else {
            throw .invalidArgument("EV2 ChangeKey here writes AES keys, not \(newKey.type)")
        }
        self.keyNumber = keyNumber
        changesAuthenticationKey = keyNumber & 0x3F == session.keyNumber & 0x3F
        if changesAuthenticationKey {
            keyData = newKey.bytes + [newKey.version]
            return
        }
        guard let oldKey else {
            throw .invalidArgument(
                "changing key \(keyNumber) from a session with key \(session.keyNumber) needs its old value")
        }
        guard oldKey.type == .aes else {
            throw .invalidArgument("the old key of an AES key is AES, not \(oldKey.type)")
        }
        keyData = zip(newKey.bytes, oldKey.bytes).map { $0 ^ $1 } + [newKey.version] + DESFireCRC32.bytes(newKey.bytes)
    }

    /// `90 C4 00 00 Lc KeyNo E(SesAuthENCKey, IVc, KeyData ‖ padding) MACt 00` at the session's counter.
    public func command(in session: EV2Session) throws(EV2Error) -> CommandAPDU {
        try session.command(.changeKey, header: [keyNumber], data: keyData, mode: .enciphered)
    }

    /// Checks the answer and returns the session to go on with: advanced by one command after
    /// changing another key, `nil` after changing the session's own key (the card ended the session).
    ///
    /// - Throws: as ``EV2Session/verifyResponse(_:to:mode:)``; ``EV2Error/malformedResponse(instruction:statusWord:reason:)``
    ///   when the answer carries data ChangeKey does not return.
    public func verifyResponse(_ response: ResponseAPDU, in session: EV2Session) throws(EV2Error) -> EV2Session? {
        if changesAuthenticationKey {
            try EV2Session.requireSuccess(response, to: .changeKey)
            guard response.data.isEmpty else {
                throw .malformedResponse(
                    instruction: .changeKey, statusWord: response.statusWord,
                    reason: "\(response.data.count) bytes after changing the session's own key, expected none")
            }
            return nil
        }
        var next = session
        let data = try next.verifyResponse(response, to: .changeKey, mode: .mac)
        guard data.isEmpty else {
            throw .malformedResponse(
                instruction: .changeKey, statusWord: response.statusWord,
                reason: "ChangeKey answered \(data.count) data bytes, expected none")
        }
        return next
    }
}
