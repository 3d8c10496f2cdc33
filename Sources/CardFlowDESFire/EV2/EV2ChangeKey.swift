import CardFlow
import CardFlowCrypto

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
/// The key version is a byte of its own for AES keys; it is never XORed. Key numbers compare on
/// their low six bits, so a DESFire PICC-level key number with key-type bits in bits 7–6 still
/// matches.
///
/// A DES-family new key (the PICC master key switched from AES to DES, 2K3DES or 3K3DES through
/// the key-type bits of KeyNo) goes as the card stores it — DES doubled to 16 bytes, 3K3DES 24
/// bytes — with its version in the parity bits and no KeyVer byte, and CRC32NK over those bytes
/// when it is another key. NXP's EV2/EV3 data sheets are not public; this is the form proxmark3
/// sends over an EV2 channel (client/src/mifare/desfirecore.c `DesfireChangeKey`), the EV1 key
/// data without the command CRC.
///
/// ```swift
/// let change = try EV2ChangeKey(keyNumber: 2, newKey: newKey, oldKey: oldKey, session: session)
/// let answer = try await channel.transmit(try change.command(in: session))
/// if let next = try change.verifyResponse(answer, in: session) { session = next }   // nil: authenticate again
/// ```
public struct EV2ChangeKey: Sendable {
    /// The key number sent as CmdHeader.
    public let keyNumber: UInt8
    /// The plaintext before padding: for AES 21 bytes for another key, 17 for the session's own;
    /// for DES-family keys the key's 16 or 24 bytes, plus 4 (CRC32NK) for another key.
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
    /// - Throws: ``EV2Error/invalidArgument(_:)`` for a missing old key, or an old key of another
    ///   key family or stored length than the new key.
    public init(keyNumber: UInt8, newKey: DESFireKey, oldKey: DESFireKey? = nil, session: EV2Session) throws(EV2Error) {
        self.keyNumber = keyNumber
        changesAuthenticationKey = keyNumber & 0x3F == session.keyNumber & 0x3F
        let newBytes = newKey.cardBytes
        let version: [UInt8] = newKey.type == .aes ? [newKey.version] : []
        if changesAuthenticationKey {
            keyData = newBytes + version
            return
        }
        guard let oldKey else {
            throw .invalidArgument(
                "changing key \(keyNumber) from a session with key \(session.keyNumber) needs its old value")
        }
        let oldBytes = oldKey.cardBytes
        // An application's keys share one type; only the PICC master key changes type, and it is
        // always the session's own key.
        guard (oldKey.type == .aes) == (newKey.type == .aes), oldBytes.count == newBytes.count else {
            throw .invalidArgument("the old key is \(oldKey.type), the new one \(newKey.type): not the same key family")
        }
        keyData = zip(newBytes, oldBytes).map { $0 ^ $1 } + version + DESFireCRC32.bytes(newBytes)
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
