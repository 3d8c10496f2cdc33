/// HMAC-protected APDUs and the sault (spec §3.4).
extension SimulatedTONCard {
    /// GET_SAULT `BD`: the current sault, `Le` 20; does not renew it.
    func getSault(_ apdu: ISO7816CommandAPDU) throws(StatusWord) -> [UInt8] {
        try apdu.requireLe(32)
        return sault
    }

    /// Checks a protected data field `payload | sault | mac` whose payload is `payloadLength`
    /// bytes, in the applet's order, and returns the payload:
    /// 1. data length ≠ payload + 64 → `67 00`; payload + sault outside 32…223 → `4F 03`;
    /// 2. sault ≠ the card's → `8F 01` (the sault is renewed after the comparison either way;
    ///    the HMAC counter is untouched);
    /// 3. MAC ≠ HMAC-SHA256_K(payload | sault) → failure counter + 1, `8F 03`, or at the
    ///    20th consecutive failure state `47` and `8F 04`; a match resets the counter.
    mutating func verifyProtected(_ data: [UInt8], payloadLength: Int) throws(StatusWord) -> [UInt8] {
        guard payloadLength >= 0, data.count == payloadLength + 64 else {
            throw StatusWord(TONStatus.wrongLength)
        }
        let signedLength = payloadLength + 32
        guard (32...223).contains(signedLength) else { throw StatusWord(TONStatus.incorrectPayload) }
        let saultMatches = Array(data[payloadLength..<signedLength]) == sault
        sault = randomBytes(32)
        guard saultMatches else { throw StatusWord(TONStatus.incorrectSault) }
        let expected = hmacKey.map { TONActivationCrypto.hmacSHA256(key: $0, data[0..<signedLength]) }
        guard let expected, expected == Array(data[signedLength...]) else {
            hmacFailures += 1
            if hmacFailures >= Self.maxHMACFailures {
                appletState = .blocked
                throw StatusWord(TONStatus.hmacTriesExpired)
            }
            throw StatusWord(TONStatus.incorrectHMAC)
        }
        hmacFailures = 0
        return Array(data[0..<payloadLength])
    }

    /// The payload length of a protected data field whose total length is known to be right
    /// only once its payload is parsed: the bytes before sault and MAC, or `67 00`.
    static func protectedPayloadLength(of data: [UInt8]) throws(StatusWord) -> Int {
        guard data.count >= 64 else { throw StatusWord(TONStatus.wrongLength) }
        return data.count - 64
    }
}
