import CardFlow

extension TONWallet {
    // MARK: Sizes

    /// S_T, AI, SN, GS, BC: empties the keychain (and ends an interrupted delete).
    public func resetKeychain() async throws {
        try await prepareProtected(.resetKeychain)
        try await sendProtected(.resetKeychain)
    }

    /// S_T, AI, SN, GS, B8.
    public func numberOfKeys() async throws -> Int {
        try await prepareProtected(.getNumberOfKeys)
        return try await readNumberOfKeys()
    }

    /// S_T, AI, SN, GS, BA: bytes used by keys.
    public func occupiedStorageSize() async throws -> Int {
        try await prepareProtected(.getOccupiedStorageSize)
        return try await readOccupiedSize()
    }

    /// S_T, AI, SN, GS, B9: bytes free.
    public func freeStorageSize() async throws -> Int {
        try await prepareProtected(.getFreeStorageSize)
        return try await readFreeSize()
    }

    /// S_T, AI, SN, then GS with B8, BA and B9.
    public func keychainInfo() async throws -> TONKeychainInfo {
        try await prepareProtected(.getNumberOfKeys)
        let count = try await readNumberOfKeys()
        let occupied = try await readOccupiedSize()
        return TONKeychainInfo(numberOfKeys: count, occupiedSize: occupied, freeSize: try await readFreeSize())
    }

    // MARK: Lookup

    /// S_T, AI, SN, GS, B8, then GS, BB per key: the id and length of every key.
    public func keychainKeys() async throws -> [TONKeyInfo] {
        try await prepareProtected(.getHmac)
        let count = try await readNumberOfKeys()
        var keys: [TONKeyInfo] = []
        for index in 0..<count {
            keys.append(try await readKeyInfo(index: index))
            await reportProgress(Double(index + 1) / Double(count))
        }
        return keys
    }

    /// S_T, AI, SN, GS, BB: id and length of the key at `index` (0...1022, else 30023).
    public func keyInfo(index: Int) async throws -> TONKeyInfo {
        try TONKeychainLimits.checkIndex(index)
        try await prepareProtected(.getHmac)
        return try await readKeyInfo(index: index)
    }

    /// S_T, AI, SN, GS, B1: where the key with id `hmac` is.
    public func keyLocation(hmac: [UInt8]) async throws -> TONKeyLocation {
        try TONKeychainLimits.checkHmac(hmac)
        try await prepareProtected(.getKeyIndexAndLength)
        return try await readKeyLocation(hmac: hmac)
    }

    /// S_T, AI, SN, GS, B0: the card recomputes the key's HMAC (8F02 when it differs).
    public func checkKeyHmacConsistency(hmac: [UInt8]) async throws {
        try TONKeychainLimits.checkHmac(hmac)
        try await prepareProtected(.checkKeyHmacConsistency)
        try await sendProtected(.checkKeyHmacConsistency, payload: hmac)
    }

    /// S_T, AI (`17`), SN, GS, B3: whether a key of `size` bytes fits (7F03 otherwise).
    public func checkAvailableVolume(forKeyOfSize size: Int) async throws {
        guard (1...TONKeychainLimits.maxKeySize).contains(size) else { throw TONError.library(code: 30021) }
        try await prepareProtected(.checkAvailableVolumeForNewKey)
        try await sendProtected(.checkAvailableVolumeForNewKey, payload: TONCommands.bigEndian(size))
    }

    // MARK: Add, change, get

    /// Adds `key` (1...8192 bytes): S_T, AI (`17`), SN; GS, B8; GS, B3; per 128-byte chunk GS,
    /// B4 (P1 00 first, 01 next); GS, B4 P1 02 with the key's HMAC. Returns the key id.
    /// - Throws: 30021 (size), 40015 (keychain full, checked before sending), 40031 when the
    ///   number of keys did not grow by one.
    public func addKey(_ key: [UInt8]) async throws -> [UInt8] {
        try TONKeychainLimits.checkKey(key)
        try await prepareProtected(.addKeyChunk)
        let before = try await readNumberOfKeys()
        guard before < TONKeychainLimits.maxKeys else { throw TONError.library(code: 40015) }
        try await sendProtected(.checkAvailableVolumeForNewKey, payload: TONCommands.bigEndian(key.count))
        try await sendChunks(key, instruction: .addKeyChunk)
        let hmac = TONProtectedCommand.keyHmac(key, key: try await hmacKeys.currentKey())
        let after = try Self.count(try await sendProtected(.addKeyChunk, p1: 0x02, payload: hmac, le: 2), code: 40033)
        guard after == before + 1 else { throw TONError.library(code: 40031) }
        return hmac
    }

    /// Replaces the key with id `oldHmac` by `newKey` of the same length: S_T, AI (`17`), SN;
    /// GS, B8; GS, B1; GS, B5; chunks GS, B6; GS, B6 P1 02. Returns the new key id.
    /// - Throws: 30022 when the lengths differ, 40032 when the number of keys changed.
    public func changeKey(_ newKey: [UInt8], oldHmac: [UInt8]) async throws -> [UInt8] {
        try TONKeychainLimits.checkKey(newKey)
        try TONKeychainLimits.checkHmac(oldHmac)
        try await prepareProtected(.changeKeyChunk)
        let before = try await readNumberOfKeys()
        let location = try await readKeyLocation(hmac: oldHmac)
        guard location.length == newKey.count else {
            throw TONError.library(code: 30022, detail: "\(location.length).")
        }
        try await sendProtected(.initiateChangeOfKey, payload: TONCommands.bigEndian(location.index))
        try await sendChunks(newKey, instruction: .changeKeyChunk)
        let hmac = TONProtectedCommand.keyHmac(newKey, key: try await hmacKeys.currentKey())
        let after = try Self.count(
            try await sendProtected(.changeKeyChunk, p1: 0x02, payload: hmac, le: 2), code: 40033)
        guard after == before else { throw TONError.library(code: 40032) }
        return hmac
    }

    /// Reads the key with id `hmac`: S_T, AI, SN, GS, B1; per 128-byte chunk GS, B2 with Le =
    /// the chunk's length. - Throws: 40036 when a chunk comes back short.
    public func key(hmac: [UInt8]) async throws -> [UInt8] {
        try TONKeychainLimits.checkHmac(hmac)
        try await prepareProtected(.getKeyChunk)
        let location = try await readKeyLocation(hmac: hmac)
        var key: [UInt8] = []
        while key.count < location.length {
            let length = min(TONKeychainLimits.chunkSize, location.length - key.count)
            let payload = TONCommands.bigEndian(location.index) + TONCommands.bigEndian(key.count)
            let chunk = try await sendProtected(.getKeyChunk, payload: payload, le: length)
            guard chunk.count == length else { throw TONError.library(code: 40036, detail: "\(length).") }
            key += chunk
            await reportProgress(Double(key.count) / Double(location.length))
        }
        return key
    }

    // MARK: Delete (two phases, as the applet requires)

    /// Deletes the key with id `hmac` (the Android seed's working flow): S_T, AI, SN, GS, B1;
    /// AI (`17`); GS, B7 (state ⇒ `37`); GS, BE until it answers 01; GS, BF until it answers 01
    /// (state ⇒ `17`); GS, B8. Returns the number of keys left.
    public func deleteKey(hmac: [UInt8]) async throws -> Int {
        try TONKeychainLimits.checkHmac(hmac)
        try await prepareProtected(.getKeyIndexAndLength)
        let location = try await readKeyLocation(hmac: hmac)
        try await checkState(for: .initiateDeleteKey)
        let answer = try await sendProtected(.initiateDeleteKey, payload: TONCommands.bigEndian(location.index), le: 2)
        guard answer.count == 2 else { throw TONError.library(code: 40035) }
        try await finishDeletion()
        return try await readNumberOfKeys()
    }

    /// Finishes a delete the card was lifted from (state `37`, else 50003): S_T, AI, SN; GS, E1;
    /// GS, BE until 01; GS, E2; GS, BF until 01; GS, B8. Returns the number of keys left.
    public func finishDeleteKeyAfterInterruption() async throws -> Int {
        try await selectAndRequire(.deletingKey)
        try await reselectKey()
        let chunkPackets = try Self.chunkPackets(try await sendProtected(.getDeleteKeyChunkNumberOfPackets, le: 2))
        try await deleteLoop(.deleteKeyChunk, limit: chunkPackets + 1, lengthCode: 40023, valueCode: 40024, progress: 0)
        let recordPackets = try Self.recordPackets(try await sendProtected(.getDeleteKeyRecordNumberOfPackets, le: 2))
        try await deleteLoop(
            .deleteKeyRecord, limit: recordPackets + 1, lengthCode: 40025, valueCode: 40026, progress: 0.5)
        return try await readNumberOfKeys()
    }

    /// S_T, AI (`37`), SN, GS, E1: packets of the interrupted delete's data move.
    public func deleteKeyChunkNumberOfPackets() async throws -> Int {
        try await prepareProtected(.getDeleteKeyChunkNumberOfPackets)
        return try Self.chunkPackets(try await sendProtected(.getDeleteKeyChunkNumberOfPackets, le: 2))
    }

    /// S_T, AI (`37`), SN, GS, E2: packets of the interrupted delete's record move.
    public func deleteKeyRecordNumberOfPackets() async throws -> Int {
        try await prepareProtected(.getDeleteKeyRecordNumberOfPackets)
        return try Self.recordPackets(try await sendProtected(.getDeleteKeyRecordNumberOfPackets, le: 2))
    }

    private func finishDeletion() async throws {
        // The card moves at most 32767/128 packets of key data and 1023/12 packets of records,
        // one more call answering 01: a bound that a correct card never reaches.
        try await deleteLoop(
            .deleteKeyChunk, limit: TONKeychainLimits.storageSize / TONKeychainLimits.chunkSize + 2,
            lengthCode: 40023, valueCode: 40024, progress: 0)
        try await deleteLoop(
            .deleteKeyRecord, limit: TONKeychainLimits.maxKeys / 12 + 2,
            lengthCode: 40025, valueCode: 40026, progress: 0.5)
    }

    /// Sends `instruction` (BE or BF) until the card answers 01, at most `limit` times.
    private func deleteLoop(
        _ instruction: TONInstruction, limit: Int, lengthCode: Int, valueCode: Int, progress: Double
    ) async throws {
        for call in 0..<max(limit, 1) {
            let answer = try await sendProtected(instruction, le: 1)
            guard answer.count == 1 else { throw TONError.library(code: lengthCode) }
            guard answer[0] <= 1 else { throw TONError.library(code: valueCode) }
            if answer[0] == 1 { return }
            await reportProgress(progress + 0.5 * Double(call + 1) / Double(max(limit, 1)))
        }
        throw TONError.library(code: valueCode)
    }

    // MARK: Helpers

    /// S_T, AI with the state check for `instruction`, SN (select the card's HMAC key).
    private func prepareProtected(_ instruction: TONInstruction) async throws {
        try await selectAndCheck(instruction)
        try await reselectKey()
    }

    private func sendChunks(_ key: [UInt8], instruction: TONInstruction) async throws {
        var start = 0
        while start < key.count {
            let end = min(start + TONKeychainLimits.chunkSize, key.count)
            let chunk = Array(key[start..<end])
            try await sendProtected(instruction, p1: start == 0 ? 0x00 : 0x01, payload: [UInt8(chunk.count)] + chunk)
            start = end
            await reportProgress(Double(start) / Double(key.count))
        }
    }

    private func readNumberOfKeys() async throws -> Int {
        let count = try Self.count(try await sendProtected(.getNumberOfKeys, le: 2), code: 40014)
        guard count <= TONKeychainLimits.maxKeys else { throw TONError.library(code: 40015) }
        return count
    }

    private func readOccupiedSize() async throws -> Int {
        try Self.count(try await sendProtected(.getOccupiedStorageSize, le: 2), code: 40016)
    }

    private func readFreeSize() async throws -> Int {
        try Self.count(try await sendProtected(.getFreeStorageSize, le: 2), code: 40017)
    }

    private func readKeyInfo(index: Int) async throws -> TONKeyInfo {
        let answer = try await sendProtected(.getHmac, payload: TONCommands.bigEndian(index), le: 0x22)
        guard answer.count == 34 else { throw TONError.library(code: 40034) }
        let length = Int(answer[32]) << 8 | Int(answer[33])
        guard (1...TONKeychainLimits.maxKeySize).contains(length) else { throw TONError.library(code: 40022) }
        return TONKeyInfo(hmac: Array(answer[0..<32]), length: length)
    }

    private func readKeyLocation(hmac: [UInt8]) async throws -> TONKeyLocation {
        let answer = try await sendProtected(.getKeyIndexAndLength, payload: hmac, le: 4)
        guard answer.count == 4 else { throw TONError.library(code: 40020) }
        let index = Int(answer[0]) << 8 | Int(answer[1])
        let length = Int(answer[2]) << 8 | Int(answer[3])
        guard index < TONKeychainLimits.maxKeys else { throw TONError.library(code: 40021) }
        guard (1...TONKeychainLimits.maxKeySize).contains(length) else { throw TONError.library(code: 40022) }
        return TONKeyLocation(index: index, length: length)
    }

    /// The chunk packet count of an interrupted delete; a card announcing more than its memory
    /// can hold would otherwise drive up to 65,536 protected commands. - Throws: 40027, 40046.
    static func chunkPackets(_ answer: [UInt8]) throws -> Int {
        let packets = try count(answer, code: 40027)
        guard packets <= TONKeychainLimits.maxDeleteChunkPackets else {
            throw TONError.library(code: 40046, detail: "\(packets).")
        }
        return packets
    }

    /// The record packet count of an interrupted delete. - Throws: 40029, 40047.
    static func recordPackets(_ answer: [UInt8]) throws -> Int {
        let packets = try count(answer, code: 40029)
        guard packets <= TONKeychainLimits.maxDeleteRecordPackets else {
            throw TONError.library(code: 40047, detail: "\(packets).")
        }
        return packets
    }

    /// A 2-byte big-endian count. - Throws: `code` for another length.
    static func count(_ answer: [UInt8], code: Int) throws -> Int {
        guard answer.count == 2 else { throw TONError.library(code: code) }
        return Int(answer[0]) << 8 | Int(answer[1])
    }
}
