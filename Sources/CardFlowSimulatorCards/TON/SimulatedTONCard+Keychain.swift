/// Keychain commands (spec §2.5, §4); all HMAC-protected. The order of checks follows the
/// applet: the pre-checks `7F08`, `7F04`, `7F05`, `7F07`, `7F09` come before the HMAC check
/// and so do not consume the sault.
extension SimulatedTONCard {
    private static let chunkFirst: UInt8 = 0x00
    private static let chunkFinal: UInt8 = 0x02

    private func macOfKey(_ key: [UInt8]) -> [UInt8] {
        TONActivationCrypto.hmacSHA256(key: hmacKey ?? [], key)
    }

    private static func index(_ payload: [UInt8]) -> Int {
        Int(payload[0]) << 8 | Int(payload[1])
    }

    /// CHECK_AVAILABLE_VOL_FOR_NEW_KEY `B3`: payload size (2 bytes).
    mutating func checkAvailableVolume(_ apdu: ISO7816CommandAPDU) throws(StatusWord) {
        guard keychain.count < TONKeychain.maxKeys else { throw StatusWord(TONStatus.maxKeysExceeded) }
        keychain.newKeySize = 0
        keychain.received = 0
        let payload = try verifyProtected(apdu.data, payloadLength: 2)
        let size = Self.index(payload)
        guard (1...TONKeychain.maxKeySize).contains(size) else { throw StatusWord(TONStatus.wrongLength) }
        guard size <= keychain.freeSize else { throw StatusWord(TONStatus.notEnoughSpace) }
        keychain.newKeySize = size
    }

    /// ADD_KEY_CHUNK `B4`: P1 `00` first chunk / `01` next (payload `n | chunk`), P1 `02`
    /// final (payload the key's MAC, `Le` 02, answers the new key count).
    mutating func addKeyChunk(_ apdu: ISO7816CommandAPDU) throws(StatusWord) -> [UInt8] {
        guard keychain.count < TONKeychain.maxKeys else { throw StatusWord(TONStatus.maxKeysExceeded) }
        guard keychain.newKeySize > 0 else { throw StatusWord(TONStatus.keySizeUnknown) }
        if apdu.p1 != Self.chunkFinal {
            let chunk = try receiveChunk(apdu)
            if apdu.p1 == Self.chunkFirst {
                keychain.received = 0
                keychain.buffer = []
            }
            guard keychain.received + chunk.count <= keychain.freeSize,
                keychain.received + chunk.count <= keychain.newKeySize
            else {
                throw StatusWord(TONStatus.incorrectKeyChunkLength)
            }
            appendChunk(chunk)
            return []
        }
        guard keychain.received == keychain.newKeySize else { throw StatusWord(TONStatus.keyLengthIncorrect) }
        let mac = try verifyProtected(apdu.data, payloadLength: 32)
        try apdu.requireLe(2)
        let key = Array(keychain.buffer.prefix(keychain.received))
        guard macOfKey(key) == mac else { throw StatusWord(TONStatus.dataIntegrityCorrupted) }
        guard keychain.index(ofMAC: mac) == nil else { throw StatusWord(TONStatus.hmacExists) }
        keychain.append(key, mac: mac)
        keychain.newKeySize = 0
        keychain.received = 0
        keychain.buffer = []
        return TONResponse.uint16(keychain.count)
    }

    /// INITIATE_CHANGE_OF_KEY `B5`: payload index (2 bytes).
    mutating func initiateChangeOfKey(_ apdu: ISO7816CommandAPDU) throws(StatusWord) {
        let payload = try verifyProtected(apdu.data, payloadLength: 2)
        let index = Self.index(payload)
        guard index < keychain.count else {
            keychain.indexToChange = -1
            throw StatusWord(TONStatus.incorrectKeyIndex)
        }
        // The received count is not reset here: a P1 00 chunk does that.
        keychain.indexToChange = index
    }

    /// CHANGE_KEY_CHUNK `B6`: as ADD_KEY_CHUNK, for a key of the same length as the one
    /// INITIATE_CHANGE_OF_KEY chose; answers the (unchanged) key count.
    mutating func changeKeyChunk(_ apdu: ISO7816CommandAPDU) throws(StatusWord) -> [UInt8] {
        let target = keychain.indexToChange
        guard target >= 0 else { throw StatusWord(TONStatus.incorrectKeyIndexToChange) }
        let targetLength = keychain.range(of: target)?.count ?? 0
        if apdu.p1 != Self.chunkFinal {
            let chunk = try receiveChunk(apdu)
            if apdu.p1 == Self.chunkFirst {
                keychain.received = 0
                keychain.buffer = []
            }
            guard keychain.received + chunk.count <= targetLength else {
                throw StatusWord(TONStatus.incorrectKeyChunkLength)
            }
            appendChunk(chunk)
            return []
        }
        guard keychain.received == targetLength else { throw StatusWord(TONStatus.keyLengthIncorrect) }
        let mac = try verifyProtected(apdu.data, payloadLength: 32)
        try apdu.requireLe(2)
        let key = Array(keychain.buffer.prefix(keychain.received))
        guard macOfKey(key) == mac else { throw StatusWord(TONStatus.dataIntegrityCorrupted) }
        guard keychain.index(ofMAC: mac) == nil else { throw StatusWord(TONStatus.hmacExists) }
        keychain.replace(at: target, with: key, mac: mac)
        keychain.indexToChange = -1
        keychain.received = 0
        keychain.buffer = []
        return TONResponse.uint16(keychain.count)
    }

    /// A chunk data field `n | chunk | sault | mac`, n 1…189 (`67 00` otherwise).
    private mutating func receiveChunk(_ apdu: ISO7816CommandAPDU) throws(StatusWord) -> [UInt8] {
        let data = apdu.data
        guard let n = data.first, (1...TONKeychain.maxChunk).contains(Int(n)), data.count == Int(n) + 65 else {
            throw StatusWord(TONStatus.wrongLength)
        }
        let payload = try verifyProtected(data, payloadLength: Int(n) + 1)
        return Array(payload[1...])
    }

    private mutating func appendChunk(_ chunk: [UInt8]) {
        keychain.buffer = Array(keychain.buffer.prefix(keychain.received)) + chunk
        keychain.received += chunk.count
    }

    /// INITIATE_DELETE_KEY `B7`: payload index, `Le` 02; state → `37`; answers the length.
    mutating func initiateDeleteKey(_ apdu: ISO7816CommandAPDU) throws(StatusWord) -> [UInt8] {
        let payload = try verifyProtected(apdu.data, payloadLength: 2)
        let index = Self.index(payload)
        guard index < keychain.count else { throw StatusWord(TONStatus.incorrectKeyIndex) }
        try apdu.requireLe(2)
        let length = keychain.initiateDelete(index: index)
        appletState = .deletingKey
        return TONResponse.uint16(length)
    }

    /// DELETE_KEY_CHUNK `BE`: `Le` 01; `00` continue, `01` done.
    mutating func deleteKeyChunk(_ apdu: ISO7816CommandAPDU) throws(StatusWord) -> [UInt8] {
        _ = try verifyProtected(apdu.data, payloadLength: 0)
        try apdu.requireLe(1)
        return [keychain.deleteChunk() ? 1 : 0]
    }

    /// DELETE_KEY_RECORD `BF`: `7F 09` before the chunks are done; `Le` 01; the final call
    /// (`01`) removes the record and returns the applet to state `17`.
    mutating func deleteKeyRecord(_ apdu: ISO7816CommandAPDU) throws(StatusWord) -> [UInt8] {
        guard keychain.chunkDone else { throw StatusWord(TONStatus.deleteChunkNotFinished) }
        _ = try verifyProtected(apdu.data, payloadLength: 0)
        try apdu.requireLe(1)
        guard keychain.deleteRecord() else { return [0] }
        appletState = .personalized
        return [1]
    }

    /// GET_DELETE_KEY_CHUNK_NUM_OF_PACKETS `E1`, _RECORD_ `E2`, chunk counter `E3`, record
    /// counter `E4`: `Le` 02.
    mutating func getDeleteCounter(_ apdu: ISO7816CommandAPDU) throws(StatusWord) -> [UInt8] {
        _ = try verifyProtected(apdu.data, payloadLength: 0)
        try apdu.requireLe(2)
        switch apdu.ins {
        case 0xE1: return TONResponse.uint16(keychain.chunkPackets)
        case 0xE2: return TONResponse.uint16(keychain.recordPackets)
        case 0xE3: return TONResponse.uint16(keychain.chunkCounter)
        default: return TONResponse.uint16(keychain.recordCounter)
        }
    }

    /// GET_KEY_INDEX_IN_STORAGE_AND_LEN `B1`: payload the key MAC, `Le` 04; `7F 00` unknown.
    mutating func getKeyIndexAndLength(_ apdu: ISO7816CommandAPDU) throws(StatusWord) -> [UInt8] {
        let mac = try verifyProtected(apdu.data, payloadLength: 32)
        try apdu.requireLe(4)
        guard let index = keychain.index(ofMAC: mac), let range = keychain.range(of: index) else {
            throw StatusWord(TONStatus.incorrectKeyIndex)
        }
        return TONResponse.uint16(index) + TONResponse.uint16(range.count)
    }

    /// GET_KEY_CHUNK `B2`: payload index (2) | start (2); `Le` the amount (1…255, inside
    /// the key, else `7F 01`).
    mutating func getKeyChunk(_ apdu: ISO7816CommandAPDU) throws(StatusWord) -> [UInt8] {
        let payload = try verifyProtected(apdu.data, payloadLength: 4)
        let index = Self.index(payload)
        guard let key = keychain.key(at: index) else { throw StatusWord(TONStatus.incorrectKeyIndex) }
        let start = Int(payload[2]) << 8 | Int(payload[3])
        let wanted = apdu.ne ?? 0
        guard start < 0x8000, wanted > 0, start + wanted <= key.count else {
            throw StatusWord(TONStatus.incorrectKeyChunkRange)
        }
        return Array(key[start..<start + wanted])
    }

    /// CHECK_KEY_HMAC_CONSISTENCY `B0`: payload the key MAC; `7F 00` unknown, `8F 02` when
    /// the stored bytes no longer match it.
    mutating func checkKeyHMACConsistency(_ apdu: ISO7816CommandAPDU) throws(StatusWord) {
        let mac = try verifyProtected(apdu.data, payloadLength: 32)
        guard let index = keychain.index(ofMAC: mac), let key = keychain.key(at: index) else {
            throw StatusWord(TONStatus.incorrectKeyIndex)
        }
        guard macOfKey(key) == mac else { throw StatusWord(TONStatus.dataIntegrityCorrupted) }
    }

    /// GET_HMAC `BB`: payload index, `Le` 22 (checked before the index); MAC (32) | length (2).
    mutating func getHMAC(_ apdu: ISO7816CommandAPDU) throws(StatusWord) -> [UInt8] {
        let payload = try verifyProtected(apdu.data, payloadLength: 2)
        try apdu.requireLe(34)
        let index = Self.index(payload)
        guard index < keychain.count, let range = keychain.range(of: index) else {
            throw StatusWord(TONStatus.incorrectKeyIndex)
        }
        return keychain.macs[index] + TONResponse.uint16(range.count)
    }

    /// GET_NUMBER_OF_KEYS `B8`, `Le` 02.
    mutating func getNumberOfKeys(_ apdu: ISO7816CommandAPDU) throws(StatusWord) -> [UInt8] {
        _ = try verifyProtected(apdu.data, payloadLength: 0)
        try apdu.requireLe(2)
        return TONResponse.uint16(keychain.count)
    }

    /// GET_FREE_STORAGE_SIZE `B9`, `Le` 02.
    mutating func getFreeStorageSize(_ apdu: ISO7816CommandAPDU) throws(StatusWord) -> [UInt8] {
        _ = try verifyProtected(apdu.data, payloadLength: 0)
        try apdu.requireLe(2)
        return TONResponse.uint16(keychain.freeSize)
    }

    /// GET_OCCUPIED_STORAGE_SIZE `BA`, `Le` 02.
    mutating func getOccupiedStorageSize(_ apdu: ISO7816CommandAPDU) throws(StatusWord) -> [UInt8] {
        _ = try verifyProtected(apdu.data, payloadLength: 0)
        try apdu.requireLe(2)
        return TONResponse.uint16(keychain.occupiedSize)
    }

    /// RESET_KEYCHAIN `BC`: clears everything; state → `17`.
    mutating func resetKeychain(_ apdu: ISO7816CommandAPDU) throws(StatusWord) {
        _ = try verifyProtected(apdu.data, payloadLength: 0)
        keychain.reset()
        appletState = .personalized
    }
}
