import CardFlow
import CardFlowCrypto

extension DESFireClient {
    /// GetKeySettings (`45`) of the selected level.
    public func getKeySettings() async throws -> DESFireKeySettings {
        try DESFireKeySettings(response: try await exchange(.getKeySettings))
    }

    /// ChangeKeySettings (`54`): needs the master key session of the level; enciphered.
    public func changeKeySettings(_ settings: UInt8) async throws {
        _ = try await exchange(.changeKeySettings, data: [settings], protection: .enciphered)
    }

    /// GetKeyVersion (`64`) of key `keyNumber` of the selected level.
    public func getKeyVersion(keyNumber: UInt8) async throws -> UInt8 {
        let data = try await exchange(.getKeyVersion, data: [keyNumber])
        guard data.count == 1 else {
            throw DESFireError.malformedResponse(command: .getKeyVersion, reason: "expected 1 byte, got \(data.count)")
        }
        return data[0]
    }

    /// ChangeKey (`C4`) of key `keyNumber` to `newKey` (§4.7).
    ///
    /// Changing the authenticated key needs only `newKey` and ends the session; changing another key
    /// needs its current value `oldKey`. In an EV2 session the key data follow ``EV2ChangeKey``
    /// (AES keys with the version byte of `newKey`; a DES-family PICC master key with its version
    /// in the parity bits). At the PICC level the new key's type goes into the key number
    /// byte, so `changeKey(keyNumber: 0, to: aesKey)` after authenticating with the DES PICC key is
    /// the DES → AES switch.
    public func changeKey(keyNumber: UInt8, to newKey: DESFireKey, oldKey: DESFireKey? = nil) async throws {
        guard let secure = session else { throw DESFireError.notAuthenticated(command: .changeKey) }
        guard keyNumber <= 0x0D else { throw DESFireError.invalidArgument("key number \(keyNumber) is outside 0...13") }
        let atPICC = selectedApplication == .picc
        let keyNumberByte = keyNumber | (atPICC ? newKey.type.cryptoFlag : 0)
        let same = keyNumber == secure.keyNumber
        if let ev2Session = secure.ev2 {
            try await changeKeyEV2(keyNumberByte, to: newKey, oldKey: oldKey, session: ev2Session)
            if same { lastAuthentication = nil }
            return
        }
        let newBytes = newKey.cardBytes
        var keyPart: [UInt8]
        if same {
            keyPart = newBytes
        } else {
            guard let oldKey else {
                throw DESFireError.invalidArgument("changing key \(keyNumber) needs its current value")
            }
            var oldBytes = oldKey.cardBytes
            if oldBytes.count < newBytes.count { oldBytes += oldBytes.prefix(newBytes.count - oldBytes.count) }
            keyPart = zip(newBytes, oldBytes.prefix(newBytes.count)).map { $0 ^ $1 }
        }
        if newKey.type == .aes { keyPart.append(newKey.version) }
        let cryptogram: [UInt8]
        switch secure.flavour {
        case .ev1, .ev2:
            cryptogram =
                keyPart + DESFireCRC32.bytes([DESFireCommand.changeKey.rawValue, keyNumberByte] + keyPart)
                + (same ? [] : DESFireCRC32.bytes(newBytes))
        case .legacy:
            cryptogram = keyPart + CRC16A.bytes(keyPart) + (same ? [] : CRC16A.bytes(newBytes))
        }
        _ = try await exchange(
            .changeKey, header: [keyNumberByte], data: cryptogram, protection: .cryptogram,
            response: same ? .endsSession : .plain)
        if same { lastAuthentication = nil }
    }

    /// ChangeKey in an EV2 session, CommMode.Full: the key data of ``EV2ChangeKey``; the session
    /// goes on after changing another key and ends after changing its own.
    private func changeKeyEV2(
        _ keyNumberByte: UInt8, to newKey: DESFireKey, oldKey: DESFireKey?, session ev2Session: EV2Session
    ) async throws {
        let change = try ev2(.changeKey) { () throws(EV2Error) in
            try EV2ChangeKey(keyNumber: keyNumberByte, newKey: newKey, oldKey: oldKey, session: ev2Session)
        }
        let body = try ev2(.changeKey) { () throws(EV2Error) in
            try ev2Session.protect(.changeKey, header: [keyNumberByte], data: change.keyData, mode: .enciphered)
        }
        let answer = try await transceive(.changeKey, body)
        session = nil
        let next = try ev2(.changeKey) { () throws(EV2Error) in
            try change.verifyResponse(ResponseAPDU(data: answer, sw1: 0x91, sw2: 0x00), in: ev2Session)
        }
        if let next { installEV2Session(next) }
    }
}
