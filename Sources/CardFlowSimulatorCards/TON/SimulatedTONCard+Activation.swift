/// Factory personalisation, state queries and activation (spec §2.5 `C1 C2 96 91 94 90 93 95 92`).
extension SimulatedTONCard {
    /// GET_APP_INFO `C1`: the state byte, `Le` 01.
    func getAppInfo(_ apdu: ISO7816CommandAPDU) throws(StatusWord) -> [UInt8] {
        try apdu.requireLe(1)
        return [appletState.rawValue]
    }

    /// GET_SERIAL_NUMBER `C2`: 24 digit values, `Le` 18; `A0 01` (checked first) when not set.
    func getSerialNumber(_ apdu: ISO7816CommandAPDU) throws(StatusWord) -> [UInt8] {
        guard let serialNumber else { throw StatusWord(TONStatus.serialNumberNotSet) }
        try apdu.requireLe(24)
        return serialNumber
    }

    /// SET_SERIAL_NUMBER `96`: 24 bytes, each 0…9 (`A0 02` otherwise).
    mutating func setSerialNumber(_ apdu: ISO7816CommandAPDU) throws(StatusWord) {
        guard apdu.data.count == 24 else { throw StatusWord(TONStatus.wrongLength) }
        guard apdu.data.allSatisfy({ $0 <= 9 }) else { throw StatusWord(TONStatus.serialNumberInvalid) }
        serialNumber = apdu.data
    }

    /// SET_ENCRYPTED_PASSWORD_FOR_CARD_AUTHENTICATION `91`: B1, 128 bytes.
    mutating func setEncryptedPassword(_ apdu: ISO7816CommandAPDU) throws(StatusWord) {
        guard apdu.data.count == 128 else { throw StatusWord(TONStatus.wrongLength) }
        encryptedPassword = apdu.data
    }

    /// SET_ENCRYPTED_COMMON_SECRET `94`: ECS, 32 bytes.
    mutating func setEncryptedCommonSecret(_ apdu: ISO7816CommandAPDU) throws(StatusWord) {
        guard apdu.data.count == 32 else { throw StatusWord(TONStatus.wrongLength) }
        encryptedCommonSecret = apdu.data
    }

    /// FINISH_PERS `90`: state `07` → `27` once B1, ECS and the serial number are set (`4F 01`).
    mutating func finishPersonalisation(_ apdu: ISO7816CommandAPDU) throws(StatusWord) {
        guard encryptedPassword != nil, encryptedCommonSecret != nil, serialNumber != nil else {
            throw StatusWord(TONStatus.personalizationNotFinished)
        }
        appletState = .waitingAuthentication
    }

    /// GET_HASH_OF_ENCRYPTED_PASSWORD `93`: SHA256(B1), `Le` 20.
    func getHashOfEncryptedPassword(_ apdu: ISO7816CommandAPDU) throws(StatusWord) -> [UInt8] {
        try apdu.requireLe(32)
        // An unset field is the applet's zero-filled array.
        return TONActivationCrypto.sha256(encryptedPassword ?? [UInt8](repeating: 0, count: 128))
    }

    /// GET_HASH_OF_ENCRYPTED_COMMON_SECRET `95`: SHA256(ECS), `Le` 20.
    func getHashOfEncryptedCommonSecret(_ apdu: ISO7816CommandAPDU) throws(StatusWord) -> [UInt8] {
        try apdu.requireLe(32)
        return TONActivationCrypto.sha256(encryptedCommonSecret ?? [UInt8](repeating: 0, count: 32))
    }

    /// VERIFY_PASSWORD `92`: P (128) | IV (16). Success: state `17` and K stored. Failure:
    /// `5F 00`, the 20th (counted over the card's life) blocks the applet with `5F 01`.
    mutating func verifyPassword(_ apdu: ISO7816CommandAPDU) throws(StatusWord) {
        guard apdu.data.count == 0x90 else { throw StatusWord(TONStatus.wrongLength) }
        let password = Array(apdu.data[0..<128])
        let iv = Array(apdu.data[128..<144])
        if let b1 = encryptedPassword, let ecs = encryptedCommonSecret,
            let key = TONActivationCrypto.hmacKey(
                password: password, iv: iv, encryptedPassword: b1,
                encryptedCommonSecret: ecs)
        {
            hmacKey = key
            appletState = .personalized
            return
        }
        passwordFailures += 1
        if passwordFailures >= Self.maxPasswordTries {
            appletState = .blocked
            throw StatusWord(TONStatus.passwordBlocked)
        }
        throw StatusWord(TONStatus.incorrectPassword)
    }
}

extension ISO7816CommandAPDU {
    /// `67 00` unless `Le` is present and codes exactly `count` bytes (the applet's
    /// `setOutgoing() != expected` check; `Le = 00` means 256).
    func requireLe(_ count: Int) throws(StatusWord) {
        guard ne == count else { throw StatusWord(TONStatus.wrongLength) }
    }
}
