import CardFlow
import Crypto

/// Builds HMAC-protected applet commands (section 3.4): data = `payload | sault | mac` with
/// mac = HMAC-SHA256_K(payload | sault), so Lc = |payload| + 64.
///
/// ```swift
/// let command = try TONProtectedCommand.make(.verifyPin, payload: pin.bytes, sault: sault, key: k)
/// // B0 A2 00 00 44 35353535 <sault> <mac>
/// ```
public enum TONProtectedCommand {
    /// The protected command `ins` with `payload`, the card's current `sault` and the HMAC key `key`.
    ///
    /// - Throws: 10014 for a sault that is not 32 bytes, 10002 for a data field over 255 bytes.
    public static func make(
        _ ins: TONInstruction, p1: UInt8 = 0, payload: [UInt8], sault: [UInt8], key: [UInt8],
        le: Int? = nil
    ) throws(TONError) -> CommandAPDU {
        guard sault.count == 32 else { throw .library(code: 10014) }
        let signed = payload + sault
        let mac = Array(HMAC<SHA256>.authenticationCode(for: signed, using: SymmetricKey(data: key)))
        return try TONCommands.applet(ins, p1: p1, data: signed + mac, le: le)
    }

    /// The key id the card stores with a keychain key: HMAC-SHA256_K(key bytes).
    public static func keyHmac(_ keyBytes: [UInt8], key: [UInt8]) -> [UInt8] {
        Array(HMAC<SHA256>.authenticationCode(for: keyBytes, using: SymmetricKey(data: key)))
    }
}
