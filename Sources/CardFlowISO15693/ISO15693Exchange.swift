import CardFlow

/// The seed's "read → server → write the same tag" exchange as a flow: identify the tag and
/// read its blocks, hand the bytes to `transform` (a server call, a command…), then write the
/// answer back block by block to the same tag and read it back to verify.
///
/// The tag may be lifted while `transform` runs: the write step waits (per the session policy)
/// for the tag with the same UID, reports any other tag as ``/CardFlow/FlowEvent/wrongCard(_:)`` and
/// writes nothing to it.
///
/// ```swift
/// let flow = ISO15693Exchange.flow(byteOrder: .reversedPerBlock) { data in try await server.exchange(data) }
/// let written = try await reader.run(flow, policy: policy).value
/// ```
public enum ISO15693Exchange {
    /// What the exchange read, and what it wrote back.
    public struct Result: Sendable, Hashable {
        public var uid: [UInt8]
        public var read: [UInt8]
        public var written: [UInt8]
    }

    public static func flow(
        firstBlock: Int = 0, blockCount: Int? = nil,
        byteOrder: ISO15693Tag.ByteOrder = .asStored,
        transform: @escaping @Sendable ([UInt8]) async throws -> [UInt8]
    ) -> Flow<Result> {
        Flow.start("identify and read") { session -> (uid: [UInt8], blockSize: Int, read: [UInt8]) in
            let tag = ISO15693Tag(channel: session, byteOrder: byteOrder)
            let info = try await tag.systemInformation()
            let count = min(blockCount ?? info.blockCount - firstBlock, info.blockCount - firstBlock)
            let data = try await tag.readBlocks(firstBlock, count: count, blockSize: info.blockSize)
            return (info.uid, info.blockSize, data)
        }
        .then("transform") { read, _ in
            // Card-independent: runs while the tag may be anywhere.
            (read, try await transform(read.read))
        }
        .then("write") { state, session in
            let (read, answer) = state
            guard answer.count % read.blockSize == 0 else {
                throw ISO15693Error.notWholeBlocks(length: answer.count, blockSize: read.blockSize)
            }
            let tag = ISO15693Tag(channel: session, byteOrder: byteOrder)
            // The session resumed only on the same UID; check anyway before writing.
            let uid = try await tag.uid()
            guard uid == read.uid else { throw ISO15693Error.differentTag(expected: read.uid, found: uid) }
            try await tag.writeBlocks(firstBlock, data: answer, blockSize: read.blockSize)
            return (read, answer)
        }
        .then("verify") { state, session in
            let (read, answer) = state
            let tag = ISO15693Tag(channel: session, byteOrder: byteOrder)
            let back = try await tag.readBlocks(
                firstBlock, count: answer.count / read.blockSize, blockSize: read.blockSize)
            guard back == answer else { throw ISO15693Error.verificationFailed(expected: answer, found: back) }
            return Result(uid: read.uid, read: read.read, written: answer)
        }
    }
}
