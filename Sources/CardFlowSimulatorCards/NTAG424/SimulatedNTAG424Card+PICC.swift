import CardFlowCrypto

/// Card-level commands: GetVersion, GetCardUID, ChangeKey, GetKeyVersion, Read_Sig,
/// SetConfiguration.
extension SimulatedNTAG424Card {
    /// GetVersion (60): hardware `04 04 02 30 00 11 05`, software `04 04 02 01 02 11 05`, then
    /// UID, batch, week and year in three frames. CommMode.MAC in a session (the data sheet's
    /// command table): the command carries a MAC, and the MAC over all three frames' data ends
    /// the last frame; plain otherwise.
    mutating func getVersion(_ data: [UInt8]) throws(NTAG424Status) -> [UInt8] {
        if session != nil { try requireSession() }
        let mode: SimulatedNTAG424CommunicationMode = session == nil ? .plain : .mac
        let (_, payload) = try unwrapCommand(ins: 0x60, data, headerLength: 0, mode: mode)
        guard payload.isEmpty else { throw .lengthError }
        let hardware: [UInt8] = [0x04, 0x04, 0x02, 0x30, 0x00, 0x11, 0x05]
        let software: [UInt8] = [0x04, 0x04, 0x02, 0x01, 0x02, 0x11, 0x05]
        // With the random ID on, the UID is only available through GetCardUID.
        let uidField = randomIDEnabled ? [UInt8](repeating: 0, count: 7) : realUID
        let week = 1 + productionBatch[0] % 52
        let production = uidField + productionBatch + [(week / 10) << 4 | (week % 10), 0x24]
        let answer = try wrapResponse(hardware + software + production, mode: mode)
        pending = .frames([Array(answer[7..<14]), Array(answer[14...])])
        return Array(answer[0..<7])
    }

    /// GetCardUID (51): the 7-byte UID, CommMode.Full, any key.
    mutating func getCardUID(_ data: [UInt8]) throws(NTAG424Status) -> [UInt8] {
        try requireSession()
        let (_, payload) = try unwrapCommand(ins: 0x51, data, headerLength: 0, mode: .full)
        guard payload.isEmpty else { throw .lengthError }
        return try wrapResponse(realUID, mode: .full)
    }

    /// ChangeKey (C4), CommMode.Full with key 0: for key 0 itself `NewKey ‖ KeyVer` (the
    /// session ends, the answer has no MAC); for another key `(NewKey ⊕ OldKey) ‖ KeyVer ‖
    /// CRC32(NewKey)`.
    mutating func changeKey(_ data: [UInt8]) throws(NTAG424Status) -> [UInt8] {
        try requireApplication()
        try requireSession(key: 0)
        let (header, payload) = try unwrapCommand(ins: 0xC4, data, headerLength: 1, mode: .full)
        let keyNumber = header[0]
        guard keyNumber <= 4 else { throw .noSuchKey }
        let target = Int(keyNumber)
        if keyNumber == session?.keyNumber {
            guard payload.count == 17 else { throw .lengthError }
            keys[target] = Array(payload[0..<16])
            keyVersions[target] = payload[16]
            session = nil
            return []
        }
        guard payload.count == 21 else { throw .lengthError }
        let newKey = ntag424XOR(Array(payload[0..<16]), keys[target])
        guard Array(payload[17..<21]) == DESFireCRC32.bytes(newKey) else { throw .integrityError }
        keys[target] = newKey
        keyVersions[target] = payload[16]
        if files[1].settings.sdm != nil { sdmImage = nil }
        return try wrapResponse([], mode: .full)
    }

    /// GetKeyVersion (64): `KeyNo` → KeyVer; CommMode.MAC in a session.
    mutating func getKeyVersion(_ data: [UInt8]) throws(NTAG424Status) -> [UInt8] {
        try requireApplication()
        if session != nil { try requireSession() }
        let (header, payload) = try unwrapCommand(ins: 0x64, data, headerLength: 1, mode: .mac)
        guard payload.isEmpty else { throw .lengthError }
        guard header[0] <= 4 else { throw .noSuchKey }
        return try wrapResponse([keyVersions[Int(header[0])]], mode: .mac)
    }

    /// Read_Sig (3C): `Addr 00` → the 56-byte originality signature, CommMode.Full in a session.
    /// The simulator answers a fixed per-card value (see ``originalitySignature``).
    mutating func readSignature(_ data: [UInt8]) throws(NTAG424Status) -> [UInt8] {
        if session != nil { try requireSession() }
        let mode: SimulatedNTAG424CommunicationMode = session == nil ? .plain : .full
        let (header, payload) = try unwrapCommand(ins: 0x3C, data, headerLength: 1, mode: mode)
        guard payload.isEmpty else { throw .lengthError }
        guard header[0] == 0x00 else { throw .parameterError }
        return try wrapResponse(originalitySignature, mode: mode)
    }

    /// SetConfiguration (5C), CommMode.Full with key 0: option 00 (PICC configuration: bit 1
    /// turns the random ID on, for good), 04, 05 (capabilities; enabling LRP is refused with
    /// 91 9E: the simulator speaks AES secure messaging only), 0A, 0B (accepted, not modelled).
    mutating func setConfiguration(_ data: [UInt8]) throws(NTAG424Status) -> [UInt8] {
        try requireApplication()
        try requireSession(key: 0)
        let (header, payload) = try unwrapCommand(ins: 0x5C, data, headerLength: 1, mode: .full)
        switch header[0] {
        case 0x00:
            guard payload.count == 1 else { throw .lengthError }
            guard payload[0] & ~0x02 == 0 else { throw .parameterError }
            if payload[0] & 0x02 != 0 {
                randomIDEnabled = true
            } else if randomIDEnabled {
                throw .parameterError
            }
        case 0x04:
            guard payload.count == 2 else { throw .lengthError }
        case 0x05:
            guard payload.count == 10 else { throw .lengthError }
            guard payload[4] & 0x02 == 0 else { throw .parameterError }
        case 0x0A:
            guard payload.count == 5 else { throw .lengthError }
        case 0x0B:
            guard payload.count == 1 else { throw .lengthError }
        default:
            throw .parameterError
        }
        return try wrapResponse([], mode: .full)
    }
}
