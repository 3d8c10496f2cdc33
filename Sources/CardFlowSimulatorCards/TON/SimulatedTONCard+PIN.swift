/// VERIFY_PIN through the CoinManager (spec §3.5).
extension SimulatedTONCard {
    /// VERIFY_PIN `A2`: protected, payload the 4 ASCII digits. Wrong: `6F 07`, or `6F 08`
    /// once 10 consecutive attempts failed; right: failures reset, signing enabled.
    mutating func verifyPIN(_ apdu: ISO7816CommandAPDU) throws(StatusWord) {
        let candidate = try verifyProtected(apdu.data, payloadLength: 4)
        guard coinManagerVerifyPIN(candidate) else {
            pinVerified = false
            pinFailures += 1
            throw StatusWord(pinFailures >= Self.maxPINTries ? TONStatus.pinTriesExpired : TONStatus.incorrectPIN)
        }
        pinFailures = 0
        pinVerified = true
    }

    /// The CoinManager's PIN check: refuses everything once no tries remain (until
    /// RESET_WALLET); a wrong PIN costs a try, a right one restores all of them.
    mutating func coinManagerVerifyPIN(_ candidate: [UInt8]) -> Bool {
        guard pinTriesRemaining > 0 else { return false }
        guard candidate == pin else {
            pinTriesRemaining -= 1
            return false
        }
        pinTriesRemaining = Self.maxPINTries
        return true
    }
}
