import CardFlowCrypto

/// Key management: GetKeySettings, ChangeKeySettings, GetKeyVersion, ChangeKey (spec §4.7, §5.3).
extension DESFireCard {
    /// GetKeySettings (45): KS and key count with the crypto bits.
    mutating func getKeySettings(_ data: [UInt8]) throws(DESFireCardStatus) -> DESFireReply {
        try requireLength(data, 0)
        let level = current
        try requireMasterKey(unless: level.freeListing)
        return DESFireReply(data: [level.keySettings, level.keyCountByte])
    }

    /// GetKeyVersion (64): free.
    mutating func getKeyVersion(_ data: [UInt8]) throws(DESFireCardStatus) -> DESFireReply {
        try requireLength(data, 1)
        let level = current
        guard Int(data[0]) < level.keys.count else { throw .noSuchKey }
        return DESFireReply(data: [level.keys[Int(data[0])].version])
    }

    /// ChangeKeySettings (54): `54 Enc(KS ‖ CRC ‖ padding)`, master key of the current level, KS bit 3 set.
    mutating func changeKeySettings(_ data: [UInt8]) throws(DESFireCardStatus) -> DESFireReply {
        guard var active = session else { throw .authenticationError }
        guard active.keyNumber == 0 else { throw .authenticationError }
        guard current.settingsChangeable else { throw .permissionDenied }
        if active.mode == .ev2 {
            let payload = try DESFireSecureMessaging.unwrapEV2(
                active, ins: 0x54, data, headerLength: 0, protection: .full
            )
            .payload
            guard payload.count == 1 else { throw .lengthError }
            applyKeySettings(payload[0])
            return .ok
        }
        let expected = DESFireSecureMessaging.protectedLength(1, mode: .enciphered, session: active)
        guard data.count == expected else { throw .lengthError }
        let newSettings: UInt8
        switch active.mode {
        case .ev1, .ev2:
            let plain = try DESFireSecureMessaging.decipherEV1(data, session: &active)
            guard Array(plain[1..<5]) == DESFireCRC32.bytes([0x54, plain[0]]),
                plain[5...].allSatisfy({ $0 == 0 })
            else { throw .integrityError }
            newSettings = plain[0]
        case .legacy:
            let plain = try DESFireSecureMessaging.recoverLegacy(data, session: active)
            guard Array(plain[1..<3]) == CRC16A.bytes([plain[0]]),
                plain[3...].allSatisfy({ $0 == 0 })
            else { throw .integrityError }
            newSettings = plain[0]
        }
        session = active
        applyKeySettings(newSettings)
        return .ok
    }

    private mutating func applyKeySettings(_ newSettings: UInt8) {
        if selectedAID == 0 {
            // PICC: bits 7…4 are reserved.
            picc.keySettings = newSettings & 0x0F
        } else {
            current.keySettings = newSettings
        }
    }

    /// ChangeKey (C4): `C4 KeyNo Enc(cryptogram)`; same-key and other-key forms, PICC key type
    /// change through bits 7…6 of KeyNo.
    mutating func changeKey(_ data: [UInt8]) throws(DESFireCardStatus) -> DESFireReply {
        guard data.count >= 1 else { throw .lengthError }
        guard var active = session else { throw .authenticationError }
        let keyNumberByte = data[0]
        let keyNumber = keyNumberByte & 0x3F
        var level = current
        guard Int(keyNumber) < level.keys.count else { throw .noSuchKey }
        // The new key's type: selectable at PICC level only; applications keep their type.
        guard let requestedType = DESFireKeyType(rawValue: keyNumberByte & 0xC0) else { throw .parameterError }
        let newType: DESFireKeyType
        if selectedAID == 0 {
            newType = requestedType
        } else {
            guard requestedType == .des || requestedType == level.keyType else { throw .parameterError }
            newType = level.keyType
        }
        try checkChangeKeyRight(keyNumber: keyNumber, level: level, session: active)
        let sameKey = keyNumber == active.keyNumber
        if active.mode == .ev2 {
            return try changeKeyEV2(data, keyNumber: keyNumber, newType: newType, sameKey: sameKey, session: active)
        }
        let keyLength = newType.keyLength
        let bodyLength = keyLength + (newType == .aes ? 1 : 0)
        let crcLength = active.mode == .ev1 ? 4 : 2
        let plainLength = bodyLength + crcLength + (sameKey ? 0 : crcLength)
        let cryptogram = Array(data[1...])
        guard cryptogram.count == DESFireSecureMessaging.padded(plainLength, active.blockSize) else {
            throw .lengthError
        }
        let plain: [UInt8]
        switch active.mode {
        case .ev1, .ev2: plain = try DESFireSecureMessaging.decipherEV1(cryptogram, session: &active)
        case .legacy: plain = try DESFireSecureMessaging.recoverLegacy(cryptogram, session: active)
        }
        let body = Array(plain.prefix(bodyLength))
        let crc = Array(plain[bodyLength..<bodyLength + crcLength])
        let expectedCRC = active.mode == .ev1 ? DESFireCRC32.bytes([0xC4, keyNumberByte] + body) : CRC16A.bytes(body)
        guard crc == expectedCRC, plain[plainLength...].allSatisfy({ $0 == 0 }) else { throw .integrityError }
        var newKey = Array(body.prefix(keyLength))
        if !sameKey {
            let old = level.keys[Int(keyNumber)].bytes
            guard old.count == keyLength else { throw .parameterError }
            newKey = zip(newKey, old).map { $0 ^ $1 }
            let keyCRC = Array(plain[bodyLength + crcLength..<plainLength])
            let expectedKeyCRC = active.mode == .ev1 ? DESFireCRC32.bytes(newKey) : CRC16A.bytes(newKey)
            guard keyCRC == expectedKeyCRC else { throw .integrityError }
        }
        let version = newType == .aes ? body[keyLength] : 0
        level.keys[Int(keyNumber)] = DESFireKeyEntry(type: newType, bytes: newKey, aesVersion: version)
        if selectedAID == 0 { level.keyType = newType }
        current = level
        if sameKey {
            // Changing the authenticated key ends the session; the answer is a bare 00.
            session = nil
            return DESFireReply(protection: .none)
        }
        session = active
        return .ok
    }

    /// ChangeKey in an EV2 session (CommMode.Full, AN12196 §5.16): the key data are
    /// `NewKey ‖ KeyVer` for the session's own key (the session ends, bare `91 00`), else
    /// `(NewKey ⊕ OldKey) ‖ KeyVer ‖ CRC32(NewKey)` (answer MACed). A DES-family key (PICC master
    /// key through the KeyNo type bits) is 16 or 24 bytes with its version in the parity bits and
    /// no KeyVer byte, as proxmark3 sends it over an EV2 channel (the EV2 data sheet is not public).
    private mutating func changeKeyEV2(
        _ data: [UInt8], keyNumber: UInt8, newType: DESFireKeyType, sameKey: Bool, session active: DESFireSession
    ) throws(DESFireCardStatus) -> DESFireReply {
        let payload = try DESFireSecureMessaging.unwrapEV2(active, ins: 0xC4, data, headerLength: 1, protection: .full)
            .payload
        let keyLength = newType.keyLength
        let bodyLength = keyLength + (newType == .aes ? 1 : 0)
        guard payload.count == bodyLength + (sameKey ? 0 : 4) else { throw .lengthError }
        var newKey = Array(payload.prefix(keyLength))
        if !sameKey {
            let old = current.keys[Int(keyNumber)].bytes
            guard old.count == keyLength else { throw .parameterError }
            newKey = zip(newKey, old).map { $0 ^ $1 }
            guard Array(payload[bodyLength...]) == DESFireCRC32.bytes(newKey) else { throw .integrityError }
        }
        var level = current
        level.keys[Int(keyNumber)] = DESFireKeyEntry(
            type: newType, bytes: newKey, aesVersion: newType == .aes ? payload[keyLength] : 0)
        if selectedAID == 0 { level.keyType = newType }
        current = level
        guard !sameKey else {
            session = nil
            return DESFireReply(protection: .none)
        }
        return .ok
    }

    /// Who may change key `keyNumber` (spec §5.3): key 0 needs key 0 and KS bit 0; other keys
    /// follow the ChangeKey nibble (0 master, 1…D that key, E the key itself, F frozen).
    private func checkChangeKeyRight(
        keyNumber: UInt8, level: DESFireApplication,
        session: DESFireSession
    ) throws(DESFireCardStatus) {
        if keyNumber == 0 {
            guard session.keyNumber == 0 else { throw .authenticationError }
            guard level.masterKeyChangeable else { throw .permissionDenied }
            return
        }
        let access = level.changeKeyAccess
        let required: UInt8
        switch access {
        case 0x0: required = 0
        case 0xE: required = keyNumber
        case 0xF: throw .permissionDenied
        default:
            // The change key itself is changed with the master key (spec §10 Q8).
            required = keyNumber == access ? 0 : access
        }
        guard session.keyNumber == required else { throw .authenticationError }
    }
}
