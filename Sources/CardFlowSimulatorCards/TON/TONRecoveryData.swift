/// The applet's recovery data buffer (spec §5): up to 2048 opaque bytes, written in parts and
/// sealed by their SHA-256; no HMAC, no PIN.
public struct TONRecoveryData: Sendable, Hashable {
    /// Capacity of the buffer.
    public static let capacity = 2048

    /// The buffer (reads may go past ``length``, as on the card).
    var buffer = [UInt8](repeating: 0, count: capacity)
    /// Bytes written.
    public internal(set) var length = 0
    /// Whether the final hash check succeeded.
    public internal(set) var isSet = false

    /// An empty buffer.
    public init() {}

    /// The data written (the first ``length`` bytes).
    public var data: [UInt8] { Array(buffer.prefix(length)) }

    mutating func reset() {
        self = TONRecoveryData()
    }
}

/// Recovery data commands `D1`–`D6`.
extension SimulatedTONCard {
    /// ADD_RECOVERY_DATA_PART `D1`: P1 `00` first part, `01` next, `02` SHA256 of the whole
    /// (32 bytes; a mismatch wipes the buffer, `6F 0B`). `6F 0C` once set; `67 00` beyond 2048.
    mutating func addRecoveryDataPart(_ apdu: ISO7816CommandAPDU) throws(StatusWord) {
        guard !recoveryData.isSet else { throw StatusWord(TONStatus.recoveryDataExists) }
        if apdu.p1 == 0x02 {
            guard apdu.data.count == 32 else { throw StatusWord(TONStatus.wrongLength) }
            guard TONActivationCrypto.sha256(recoveryData.data) == apdu.data else {
                recoveryData.reset()
                throw StatusWord(TONStatus.recoveryHashIncorrect)
            }
            recoveryData.isSet = true
            return
        }
        if apdu.p1 == 0x00 { recoveryData.length = 0 }
        let start = recoveryData.length
        guard start + apdu.data.count <= TONRecoveryData.capacity else { throw StatusWord(TONStatus.wrongLength) }
        recoveryData.buffer.replaceSubrange(start..<start + apdu.data.count, with: apdu.data)
        recoveryData.length += apdu.data.count
    }

    /// GET_RECOVERY_DATA_PART `D2`: start (2 bytes), `Le` the amount; `6F 0A` outside the
    /// 2048-byte buffer.
    func getRecoveryDataPart(_ apdu: ISO7816CommandAPDU) throws(StatusWord) -> [UInt8] {
        guard recoveryData.isSet else { throw StatusWord(TONStatus.recoveryDataMissing) }
        guard apdu.data.count == 2 else { throw StatusWord(TONStatus.wrongLength) }
        guard let wanted = apdu.ne else { throw StatusWord(TONStatus.wrongLength) }
        let start = Int(apdu.data[0]) << 8 | Int(apdu.data[1])
        guard start < 0x8000, start + wanted <= TONRecoveryData.capacity else {
            throw StatusWord(TONStatus.incorrectRecoveryRange)
        }
        return Array(recoveryData.buffer[start..<start + wanted])
    }

    /// GET_RECOVERY_DATA_HASH `D3`, `Le` 20.
    func getRecoveryDataHash(_ apdu: ISO7816CommandAPDU) throws(StatusWord) -> [UInt8] {
        guard recoveryData.isSet else { throw StatusWord(TONStatus.recoveryDataMissing) }
        try apdu.requireLe(32)
        return TONActivationCrypto.sha256(recoveryData.data)
    }

    /// GET_RECOVERY_DATA_LEN `D4`, `Le` 02.
    func getRecoveryDataLength(_ apdu: ISO7816CommandAPDU) throws(StatusWord) -> [UInt8] {
        guard recoveryData.isSet else { throw StatusWord(TONStatus.recoveryDataMissing) }
        try apdu.requireLe(2)
        return TONResponse.uint16(recoveryData.length)
    }

    /// RESET_RECOVERY_DATA `D5`.
    mutating func resetRecoveryData(_ apdu: ISO7816CommandAPDU) throws(StatusWord) {
        recoveryData.reset()
    }

    /// IS_RECOVERY_DATA_SET `D6`, `Le` 01.
    func isRecoveryDataSet(_ apdu: ISO7816CommandAPDU) throws(StatusWord) -> [UInt8] {
        try apdu.requireLe(1)
        return [recoveryData.isSet ? 1 : 0]
    }
}
