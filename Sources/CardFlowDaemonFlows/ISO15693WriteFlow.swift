import CardFlow
import CardFlowDaemon
import CardFlowISO15693

/// `{"kind": "iso15693-write", "first": 8, "data": "4153534554303031", "lock": false}`: write
/// `data` (whole blocks, hex) from block `first` of an ISO 15693 tag, read it back, and with
/// `lock` lock those blocks for good.
///
/// Running it twice is harmless, as a daemon that sees the same tag again needs: blocks that
/// already hold their bytes are not written again, and blocks already locked count as locked
/// (the tag's "already locked", 0x11). A locked block that holds other bytes fails the job with
/// ``/CardFlowISO15693/ISO15693Error/blockLocked(_:)``. A fleet rule can drive it, each record
/// giving its tag's `data` (an asset number, a label):
///
/// ```json
/// {"kind": "fleet", "flow": {"kind": "iso15693-write", "first": 8, "lock": true}}
/// ```
public struct ISO15693WriteFlow: DaemonFlow, Hashable {
    public static let kind = "iso15693-write"
    public static let writesToCard = true
    public static let personalisesCard = true

    /// The largest `data` a tag can hold: 256 blocks of 32 bytes (ISO 15693-3's limits).
    public static let maximumLength = 256 * 32

    /// The first block written.
    public var first: Int
    /// The bytes written, whole blocks of the tag's block size.
    public var data: [UInt8]
    /// Whether the written blocks are then locked (permanent: LOCK BLOCK cannot be undone).
    public var lock: Bool

    /// - Parameters:
    ///   - first: the first block (0–255).
    ///   - data: whole blocks of the tag's block size (checked on the tag, before any write).
    ///   - lock: lock the blocks after the read-back matched.
    public init(first: Int, data: [UInt8], lock: Bool = false) {
        self.first = first
        self.data = data
        self.lock = lock
    }

    enum CodingKeys: String, CodingKey { case first, data, lock }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        first = try container.decodeIfPresent(Int.self, forKey: .first) ?? 0
        data = try container.decode(HexBytes.self, forKey: .data).bytes
        lock = try container.decodeIfPresent(Bool.self, forKey: .lock) ?? false
        guard ISO15693Tag.addressableBlocks.contains(first) else {
            throw DecodingError.dataCorruptedError(
                forKey: .first, in: container, debugDescription: "a block from 0 to 255")
        }
        guard (1...Self.maximumLength).contains(data.count) else {
            throw DecodingError.dataCorruptedError(
                forKey: .data, in: container, debugDescription: "1 to \(Self.maximumLength) bytes (hex)")
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(first, forKey: .first)
        try container.encode(HexBytes(data), forKey: .data)
        try container.encode(lock, forKey: .lock)
    }

    /// The flow: identify; the tag's block size and count (GET SYSTEM INFORMATION) checked
    /// against `data` before anything is written; blocks that differ written one by one; all of
    /// them read back and compared; then, with `lock`, each locked.
    ///
    /// - Throws: ``/CardFlowISO15693/ISO15693Error/notWholeBlocks(length:blockSize:)`` or
    ///   ``/CardFlowISO15693/ISO15693Error/blockOutOfRange(first:count:)`` before a write,
    ///   ``/CardFlowISO15693/ISO15693Error/blockLocked(_:)`` for a locked block that holds
    ///   other bytes, ``/CardFlowISO15693/ISO15693Error/verificationFailed(expected:found:)``
    ///   when the read-back differs.
    public func job(_ context: DaemonFlowContext) async throws -> FlowJob {
        let flow = self
        return FlowJob(
            flow: DaemonFlowSteps.identify.then("iso15693-write") { outcome, session in
                var outcome = outcome
                outcome.values.merge(try await flow.write(on: ISO15693Tag(channel: session))) { $1 }
                return outcome
            })
    }

    /// Writes, verifies and locks on `tag`; returns the outcome's values.
    func write(on tag: ISO15693Tag) async throws -> [String: String] {
        let memory = try await tag.systemInformation()
        let size = memory.blockSize
        guard data.count % size == 0 else { throw ISO15693Error.notWholeBlocks(length: data.count, blockSize: size) }
        let count = data.count / size
        guard first + count <= memory.blockCount else {
            throw ISO15693Error.blockOutOfRange(first: first, count: count)
        }

        let before = try await tag.readBlocks(first, count: count, blockSize: size)
        var written = 0
        for index in 0..<count {
            let range = index * size..<(index + 1) * size
            guard before[range] != data[range] else { continue }
            try await tag.writeBlocks(first + index, data: Array(data[range]), blockSize: size)
            written += 1
        }
        let after = try await tag.readBlocks(first, count: count, blockSize: size)
        guard after == data else { throw ISO15693Error.verificationFailed(expected: data, found: after) }

        var newlyLocked = 0
        if lock {
            for block in first..<first + count {
                do {
                    try await tag.lockBlock(block)
                    newlyLocked += 1
                } catch ISO15693Error.tagError(code: 0x11) {
                    continue // already locked, with the right bytes (read back above)
                }
            }
        }
        var values = ["blocks": String(count), "written": String(written), "blockSize": String(size)]
        if lock { values["locked"] = String(newlyLocked) }
        return values
    }
}

extension FlowSpecification {
    /// Write (and optionally lock) blocks of an ISO 15693 tag (``ISO15693WriteFlow``).
    public static func iso15693Write(first: Int, data: [UInt8], lock: Bool = false) -> FlowSpecification {
        FlowSpecification(ISO15693WriteFlow(first: first, data: data, lock: lock))
    }
}
