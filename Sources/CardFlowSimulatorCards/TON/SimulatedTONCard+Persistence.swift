import CardFlow

/// Persistence of the card's memory (``CardStateStore``): byte strings as hex, everything
/// validated on load so that an edited state file can never make the model trap.
extension SimulatedTONCard {
    private enum CodingKeys: String, CodingKey {
        case uid, appletState, encryptedPassword, encryptedCommonSecret, serialNumber, passwordFailures
        case hmacKey, hmacFailures, sault, pinFailures, keychain, recoveryData
        case rootSeed, pin, pinTriesRemaining, deviceLabel, csn, entropy
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        uid = try c.decodeHex(.uid, lengths: 4...10)
        appletState = try c.decode(SimulatedTONAppletState.self, forKey: .appletState)
        encryptedPassword = try c.decodeHexIfPresent(.encryptedPassword, lengths: 128...128)
        encryptedCommonSecret = try c.decodeHexIfPresent(.encryptedCommonSecret, lengths: 32...32)
        serialNumber = try c.decodeHexIfPresent(.serialNumber, lengths: 24...24)
        if let serialNumber, !serialNumber.allSatisfy({ $0 <= 9 }) {
            throw DecodingError.dataCorruptedError(forKey: .serialNumber, in: c, debugDescription: "digits must be 0…9")
        }
        passwordFailures = try c.decodeCount(.passwordFailures, in: 0...Self.maxPasswordTries)
        hmacKey = try c.decodeHexIfPresent(.hmacKey, lengths: 32...32)
        hmacFailures = try c.decodeCount(.hmacFailures, in: 0...Self.maxHMACFailures)
        sault = try c.decodeHex(.sault, lengths: 32...32)
        pinFailures = try c.decodeCount(.pinFailures, in: 0...0xFFFF)
        keychain = try c.decode(TONKeychain.self, forKey: .keychain)
        recoveryData = try c.decode(TONRecoveryData.self, forKey: .recoveryData)
        rootSeed = try c.decodeHexIfPresent(.rootSeed, lengths: 64...64)
        pin = try c.decodeHex(.pin, lengths: 4...4)
        pinTriesRemaining = try c.decodeCount(.pinTriesRemaining, in: 0...Self.maxPINTries)
        deviceLabel = try c.decodeHex(.deviceLabel, lengths: 32...32)
        csn = try c.decodeHex(.csn, lengths: 1...64)
        entropy = try c.decode(UInt64.self, forKey: .entropy)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(uid.hexString, forKey: .uid)
        try c.encode(appletState, forKey: .appletState)
        try c.encodeIfPresent(encryptedPassword.map(\.hexString), forKey: .encryptedPassword)
        try c.encodeIfPresent(encryptedCommonSecret.map(\.hexString), forKey: .encryptedCommonSecret)
        try c.encodeIfPresent(serialNumber.map(\.hexString), forKey: .serialNumber)
        try c.encode(passwordFailures, forKey: .passwordFailures)
        try c.encodeIfPresent(hmacKey.map(\.hexString), forKey: .hmacKey)
        try c.encode(hmacFailures, forKey: .hmacFailures)
        try c.encode(sault.hexString, forKey: .sault)
        try c.encode(pinFailures, forKey: .pinFailures)
        try c.encode(keychain, forKey: .keychain)
        try c.encode(recoveryData, forKey: .recoveryData)
        try c.encodeIfPresent(rootSeed.map(\.hexString), forKey: .rootSeed)
        try c.encode(pin.hexString, forKey: .pin)
        try c.encode(pinTriesRemaining, forKey: .pinTriesRemaining)
        try c.encode(deviceLabel.hexString, forKey: .deviceLabel)
        try c.encode(csn.hexString, forKey: .csn)
        try c.encode(entropy, forKey: .entropy)
    }
}

extension TONKeychain {
    private enum CodingKeys: String, CodingKey {
        case store, offsets, lengths, macs, newKeySize, received, buffer, indexToChange
        case deleteIndex, deletingLastKey, offsetToDelete, lengthToDelete, offsetOfNextKey, totalAtDelete
        case chunkPackets, chunkTail, recordPackets, recordTail, chunkCounter, recordCounter, chunkDone
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let stored = try c.decodeHex(.store, lengths: 0...Self.storageSize)
        store = stored + [UInt8](repeating: 0, count: Self.storageSize - stored.count)
        offsets = try c.decode([Int].self, forKey: .offsets)
        lengths = try c.decode([Int].self, forKey: .lengths)
        macs = try c.decode([String].self, forKey: .macs).map { [UInt8](persistedHex: $0) ?? [] }
        guard offsets.count == lengths.count, offsets.count == macs.count, offsets.count <= Self.maxKeys,
            macs.allSatisfy({ $0.count == 32 }),
            zip(offsets, lengths).allSatisfy({
                $0 >= 0 && (1...Self.maxKeySize).contains($1) && $0 + $1 <= Self.storageSize
            }),
            lengths.reduce(0, +) <= Self.storageSize
        else {
            throw DecodingError.dataCorruptedError(
                forKey: .offsets, in: c, debugDescription: "inconsistent key records")
        }
        let bounded = 0...Self.storageSize
        newKeySize = try c.decodeCount(.newKeySize, in: 0...Self.maxKeySize)
        buffer = try c.decodeHex(.buffer, lengths: 0...Self.maxKeySize)
        received = try c.decodeCount(.received, in: 0...buffer.count)
        indexToChange = try c.decodeCount(.indexToChange, in: -1...Self.maxKeys)
        deleteIndex = try c.decodeCount(.deleteIndex, in: 0...Self.maxKeys)
        deletingLastKey = try c.decode(Bool.self, forKey: .deletingLastKey)
        offsetToDelete = try c.decodeCount(.offsetToDelete, in: bounded)
        lengthToDelete = try c.decodeCount(.lengthToDelete, in: bounded)
        offsetOfNextKey = try c.decodeCount(.offsetOfNextKey, in: bounded)
        totalAtDelete = try c.decodeCount(.totalAtDelete, in: bounded)
        chunkPackets = try c.decodeCount(.chunkPackets, in: bounded)
        chunkTail = try c.decodeCount(.chunkTail, in: 0...Self.deletePacket)
        recordPackets = try c.decodeCount(.recordPackets, in: bounded)
        recordTail = try c.decodeCount(.recordTail, in: 0...Self.recordPacket)
        chunkCounter = try c.decodeCount(.chunkCounter, in: bounded)
        recordCounter = try c.decodeCount(.recordCounter, in: bounded)
        chunkDone = try c.decode(Bool.self, forKey: .chunkDone)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        // Only up to the last non-zero byte: an empty keychain is an empty string.
        let used = (store.lastIndex(where: { $0 != 0 }) ?? -1) + 1
        try c.encode(Array(store.prefix(used)).hexString, forKey: .store)
        try c.encode(offsets, forKey: .offsets)
        try c.encode(lengths, forKey: .lengths)
        try c.encode(macs.map(\.hexString), forKey: .macs)
        try c.encode(newKeySize, forKey: .newKeySize)
        try c.encode(received, forKey: .received)
        try c.encode(buffer.hexString, forKey: .buffer)
        try c.encode(indexToChange, forKey: .indexToChange)
        try c.encode(deleteIndex, forKey: .deleteIndex)
        try c.encode(deletingLastKey, forKey: .deletingLastKey)
        try c.encode(offsetToDelete, forKey: .offsetToDelete)
        try c.encode(lengthToDelete, forKey: .lengthToDelete)
        try c.encode(offsetOfNextKey, forKey: .offsetOfNextKey)
        try c.encode(totalAtDelete, forKey: .totalAtDelete)
        try c.encode(chunkPackets, forKey: .chunkPackets)
        try c.encode(chunkTail, forKey: .chunkTail)
        try c.encode(recordPackets, forKey: .recordPackets)
        try c.encode(recordTail, forKey: .recordTail)
        try c.encode(chunkCounter, forKey: .chunkCounter)
        try c.encode(recordCounter, forKey: .recordCounter)
        try c.encode(chunkDone, forKey: .chunkDone)
    }
}

extension TONRecoveryData: Codable {
    private enum CodingKeys: String, CodingKey { case buffer, length, isSet }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let stored = try c.decodeHex(.buffer, lengths: 0...Self.capacity)
        buffer = stored + [UInt8](repeating: 0, count: Self.capacity - stored.count)
        length = try c.decodeCount(.length, in: 0...Self.capacity)
        isSet = try c.decode(Bool.self, forKey: .isSet)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        let used = (buffer.lastIndex(where: { $0 != 0 }) ?? -1) + 1
        try c.encode(Array(buffer.prefix(used)).hexString, forKey: .buffer)
        try c.encode(length, forKey: .length)
        try c.encode(isSet, forKey: .isSet)
    }
}

extension KeyedDecodingContainer {
    /// A hex string field whose byte length lies in `lengths`.
    func decodeHex(_ key: Key, lengths: ClosedRange<Int>) throws -> [UInt8] {
        let text = try decode(String.self, forKey: key)
        guard let bytes = [UInt8](persistedHex: text), lengths.contains(bytes.count) else {
            throw DecodingError.dataCorruptedError(
                forKey: key, in: self,
                debugDescription: "expected hex of \(lengths) bytes")
        }
        return bytes
    }

    func decodeHexIfPresent(_ key: Key, lengths: ClosedRange<Int>) throws -> [UInt8]? {
        guard contains(key), try !decodeNil(forKey: key) else { return nil }
        return try decodeHex(key, lengths: lengths)
    }

    /// An integer field within `range`.
    func decodeCount(_ key: Key, in range: ClosedRange<Int>) throws -> Int {
        let value = try decode(Int.self, forKey: key)
        guard range.contains(value) else {
            throw DecodingError.dataCorruptedError(forKey: key, in: self, debugDescription: "must be in \(range)")
        }
        return value
    }
}
