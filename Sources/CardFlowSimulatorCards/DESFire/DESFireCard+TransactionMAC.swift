import CardFlowCrypto

/// The Transaction MAC of DESFire EV2/EV3 (MF2DLHX0 §10.3, AN12343): a TransactionMAC file per
/// application holds TMC ‖ TMV; every committed transaction that read or changed data raises the
/// counter and MACs its Transaction MAC Input (TMI) with a key derived from AppTransactionMACKey.
extension DESFireCard {
    /// CreateTransactionMACFile (CE): `FileNo FileOption AR(2) TMKeyOption` in clear, then
    /// `E(TMKey ‖ TMKeyVer) ‖ MACt` (CommMode.Full). Needs an EV2 session with the application
    /// master key; one TransactionMAC file per application; TMKeyOption `02` (AES) only.
    mutating func createTransactionMACFile(_ data: [UInt8]) throws(DESFireCardStatus) -> DESFireReply {
        try requireApplication()
        guard let active = session, active.mode == .ev2 else { throw .authenticationError }
        try requireMasterKey(unless: false)
        let (header, payload) = try DESFireSecureMessaging.unwrapEV2(
            active, ins: 0xCE, data, headerLength: 5, protection: .full)
        guard payload.count == 17 else { throw .lengthError }
        guard header[4] == 0x02, header[1] & 0x7C == 0 else { throw .parameterError }
        guard !current.files.contains(where: { $0.type == .transactionMAC }) else { throw .duplicateError }
        try add(
            DESFireFile(
                number: header[0], type: .transactionMAC, isoFileID: nil, communication: header[1] & 0x03,
                accessRights: DESFireAccessRights(raw: DESFireBytes.readLE16(header, at: 2)),
                data: [UInt8](repeating: 0, count: 12), valueState: nil, recordState: nil,
                transactionMACKey: .init(bytes: Array(payload.prefix(16)), version: payload[16])))
        return .ok
    }

    /// Adds one command to TMI when the selected application has a TransactionMAC file:
    /// `head ‖ ZeroPadding`, then `data ‖ ZeroPadding` (plain values, whatever the comm mode).
    /// `head` is only built when it is recorded.
    mutating func addTransactionMACInput(_ head: @autoclosure () -> [UInt8], data: [UInt8]? = nil) {
        guard selectedAID != 0, current.files.contains(where: { $0.type == .transactionMAC }) else { return }
        var input = transaction.transactionMACInput + head()
        input += [UInt8](repeating: 0, count: (16 - input.count % 16) % 16)
        if let data {
            input += data
            input += [UInt8](repeating: 0, count: (16 - input.count % 16) % 16)
        }
        transaction.transactionMACInput = input
    }

    /// At CommitTransaction: when TMI is not empty, TMC + 1 and TMV = MACtTM(SesTMMACKey, TMI)
    /// replace the file's content, SesTMMACKey = CMAC(AppTransactionMACKey, 5A 00 01 00 80 ‖
    /// (TMC + 1) ‖ UID). Returns the file's TMC ‖ TMV, or nil without a TransactionMAC file.
    mutating func commitTransactionMAC(input: [UInt8]) throws(DESFireCardStatus) -> [UInt8]? {
        guard let index = current.files.firstIndex(where: { $0.type == .transactionMAC }) else { return nil }
        let file = current.files[index]
        guard !input.isEmpty, let key = file.transactionMACKey else { return file.data }
        let counter = UInt32(bitPattern: DESFireBytes.readLE32(file.data, at: 0)) &+ 1
        let counterBytes = (0..<4).map { UInt8(truncatingIfNeeded: counter >> (8 * UInt32($0))) }
        let vector: [UInt8] = [0x5A, 0x00, 0x01, 0x00, 0x80] + counterBytes + realUID
        let value = try DESFireSecureMessaging.guarded { () throws(CardCryptoError) in
            let sessionKey = try AESCMAC.mac(vector, key: key.bytes)
            return MACTruncation.ev2OddBytes(try AESCMAC.mac(input, key: sessionKey))
        }
        current.files[index].data = counterBytes + value
        return counterBytes + value
    }
}
