/// The applet's keychain (spec §4, `KeyChain.java`): keys of 1…8192 bytes packed in
/// insertion order in a 32 767-byte store, at most 1023 of them, each identified by its
/// HMAC-SHA256 under the card's key K (computed by the host, checked by the card).
///
/// Deleting is two-phase, as on the card: INITIATE_DELETE_KEY records the key and the state
/// goes to `37`; DELETE_KEY_CHUNK then moves the following keys' bytes down 128 bytes per
/// call (`(total − nextOffset) / 128 + 1` calls, the last answers `01`), DELETE_KEY_RECORD
/// shifts the following records 12 per call (`(count − index − 1) / 12 + 1` calls) and the
/// last call drops the record and returns the applet to `17`. As on the card, INITIATE_DELETE_KEY
/// answers a stale length when the key is the last one.
public struct TONKeychain: Sendable, Hashable, Codable {
    /// Size of the key store.
    public static let storageSize = 32_767
    /// Largest number of keys.
    public static let maxKeys = 1023
    /// Largest key.
    public static let maxKeySize = 8192
    /// Largest chunk ADD_KEY_CHUNK / CHANGE_KEY_CHUNK accept.
    public static let maxChunk = 189
    /// Bytes moved per DELETE_KEY_CHUNK.
    static let deletePacket = 128
    /// Records shifted per DELETE_KEY_RECORD.
    static let recordPacket = 12

    /// The packed key bytes.
    var store = [UInt8](repeating: 0, count: storageSize)
    var offsets: [Int] = []
    var lengths: [Int] = []
    var macs: [[UInt8]] = []

    // Add / change cursors.
    var newKeySize = 0
    var received = 0
    var buffer: [UInt8] = []
    /// The key CHANGE_KEY_CHUNK overwrites; the applet's field starts at 0, −1 after use.
    var indexToChange = 0

    // Delete cursors.
    var deleteIndex = 0
    var deletingLastKey = false
    var offsetToDelete = 0
    var lengthToDelete = 0
    var offsetOfNextKey = 0
    var totalAtDelete = 0
    var chunkPackets = 0
    var chunkTail = 0
    var recordPackets = 0
    var recordTail = 0
    var chunkCounter = 0
    var recordCounter = 0
    var chunkDone = false

    /// An empty keychain.
    public init() {}

    /// Number of keys.
    public var count: Int { offsets.count }
    /// Bytes used: the sum of the key lengths.
    public var occupiedSize: Int { lengths.reduce(0, +) }
    /// Bytes left.
    public var freeSize: Int { Self.storageSize - occupiedSize }

    /// The bytes of key `index`, if it exists and lies inside the store.
    func key(at index: Int) -> [UInt8]? {
        guard index >= 0, index < count, let range = range(of: index) else { return nil }
        return Array(store[range])
    }

    func range(of index: Int) -> Range<Int>? {
        guard index >= 0, index < count, index < lengths.count else { return nil }
        let start = offsets[index]
        let end = start + lengths[index]
        guard start >= 0, start <= end, end <= store.count else { return nil }
        return start..<end
    }

    /// The first index whose MAC is `mac`.
    func index(ofMAC mac: [UInt8]) -> Int? {
        macs.firstIndex(of: mac)
    }

    /// Appends a key (already checked) at the end of the packed store.
    mutating func append(_ key: [UInt8], mac: [UInt8]) {
        let offset = occupiedSize
        guard offset + key.count <= store.count else { return }
        store.replaceSubrange(offset..<offset + key.count, with: key)
        offsets.append(offset)
        lengths.append(key.count)
        macs.append(mac)
    }

    /// Overwrites key `index` with a key of the same length.
    mutating func replace(at index: Int, with key: [UInt8], mac: [UInt8]) {
        guard let range = range(of: index), range.count == key.count, index < macs.count else { return }
        store.replaceSubrange(range, with: key)
        macs[index] = mac
    }

    /// RESET_KEYCHAIN: clears keys and cursors; no key is chosen for a change any more. As on
    /// the card, the last reported deletion length survives.
    mutating func reset() {
        let staleLength = lengthToDelete
        self = TONKeychain()
        indexToChange = -1
        lengthToDelete = staleLength
    }

    /// INITIATE_DELETE_KEY for an existing `index`; returns the length it reports.
    mutating func initiateDelete(index: Int) -> Int {
        deleteIndex = index
        chunkCounter = 0
        recordCounter = 0
        chunkDone = false
        deletingLastKey = index == count - 1
        if !deletingLastKey {
            offsetToDelete = offsets[index]
            lengthToDelete = lengths[index]
            offsetOfNextKey = offsets[index + 1]
            totalAtDelete = occupiedSize
            chunkPackets = max(0, totalAtDelete - offsetOfNextKey) / Self.deletePacket
            chunkTail = max(0, totalAtDelete - offsetOfNextKey) % Self.deletePacket
            let following = count - index - 1
            recordPackets = following / Self.recordPacket
            recordTail = following % Self.recordPacket
        } else {
            chunkPackets = 0
            chunkTail = 0
            recordPackets = 0
            recordTail = 0
        }
        // The applet does not refresh the length for the last key (spec §10.2).
        return lengthToDelete
    }

    /// One DELETE_KEY_CHUNK: `true` once all bytes have moved.
    mutating func deleteChunk() -> Bool {
        if chunkDone { return true }
        if deletingLastKey {
            if let range = range(of: deleteIndex) {
                store.replaceSubrange(range, with: [UInt8](repeating: 0, count: range.count))
            }
            chunkDone = true
            return true
        }
        let size = chunkCounter < chunkPackets ? Self.deletePacket : chunkTail
        let from = offsetOfNextKey + chunkCounter * Self.deletePacket
        let to = offsetToDelete + chunkCounter * Self.deletePacket
        if size > 0, from >= 0, to >= 0, from + size <= store.count, to + size <= store.count {
            let moved = Array(store[from..<from + size])
            store.replaceSubrange(to..<to + size, with: moved)
        }
        guard chunkCounter >= chunkPackets else {
            chunkCounter += 1
            return false
        }
        // The freed tail of the store.
        let freed = max(0, totalAtDelete - lengthToDelete)..<min(store.count, max(0, totalAtDelete))
        if !freed.isEmpty { store.replaceSubrange(freed, with: [UInt8](repeating: 0, count: freed.count)) }
        chunkDone = true
        return true
    }

    /// One DELETE_KEY_RECORD: `true` when the record is gone (the count is one less).
    mutating func deleteRecord() -> Bool {
        if deletingLastKey || count == 0 {
            dropLastRecord()
            return true
        }
        let size = recordCounter < recordPackets ? Self.recordPacket : recordTail
        let first = deleteIndex + 1 + recordCounter * Self.recordPacket
        for j in first..<first + size where j >= 1 && j < count {
            offsets[j - 1] = offsets[j] - lengthToDelete
            lengths[j - 1] = lengths[j]
            macs[j - 1] = macs[j]
        }
        guard recordCounter >= recordPackets else {
            recordCounter += 1
            return false
        }
        dropLastRecord()
        return true
    }

    private mutating func dropLastRecord() {
        guard count > 0 else { return }
        offsets.removeLast()
        lengths.removeLast()
        macs.removeLast()
    }
}
