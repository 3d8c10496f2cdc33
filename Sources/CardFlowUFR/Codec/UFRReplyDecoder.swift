/// Reads frames from the bytes a uFR reader sends, however the link cuts them (a serial line's
/// reads, TCP segments, UDP datagrams).
///
/// Bytes before a reply header (ACK, RSP, ERR) are skipped (the bootloader's `03 55 55 BB` after a reset, the
/// opt-in asynchronous card-ID output), as are header bytes whose trailer does not follow (a
/// header value inside other bytes). A packet whose header and trailer fit but whose checksum
/// does not, or an EXT block with a bad checksum, is an error: the decoder drops it and goes on
/// from the next byte, so later frames still decode. The buffer never holds more than one
/// frame's bytes plus the last chunk appended.
///
/// ```swift
/// var decoder = UFRReplyDecoder()
/// decoder.append([0xDE, 0x10, 0xED, 0x05, 0x00, 0x00, 0x2D, 0x21, 0x00, 0x15, 0xD1, 0xEC])
/// let frame = try decoder.next()   // RSP GET_READER_TYPE, EXT 21 00 15 D1
/// ```
public struct UFRReplyDecoder: Sendable {
    private var buffer: [UInt8] = []
    /// How many bytes were skipped as no frame's, since the decoder was made or reset.
    public private(set) var skippedByteCount = 0

    /// Whether a `00` byte where a frame begins starts a chunk of streamed data (`00 n <n bytes>`),
    /// as the reply to DESFIRE_READ_FROM_STD_FILE sends its data before the RSP (ufr.md §2.3).
    /// Off, such bytes are skipped as no frame's.
    public var acceptsStreamedData = false

    /// An empty decoder.
    public init() {}

    /// The bytes held that are not a whole frame yet.
    public var bufferedByteCount: Int { buffer.count }

    /// Adds bytes the reader sent.
    public mutating func append(_ bytes: some Sequence<UInt8>) {
        buffer.append(contentsOf: bytes)
    }

    /// Drops every byte held (a datagram link does so before each new command, so a late answer
    /// to an earlier one is not taken for the new one's).
    public mutating func reset() {
        buffer.removeAll(keepingCapacity: true)
        skippedByteCount = 0
    }

    /// The next whole frame, nil when more bytes are needed.
    ///
    /// - Throws: ``UFRFrameError/badChecksum(_:expected:found:)`` or
    ///   ``UFRFrameError/badExtensionChecksum(expected:found:)`` for a corrupt frame (dropped;
    ///   call again for the ones after it).
    public mutating func next() throws(UFRFrameError) -> UFRIncomingFrame? {
        while true {
            if acceptsStreamedData, buffer.first == 0x00 {
                guard buffer.count >= 2 else { return nil }
                let count = Int(buffer[1])
                guard buffer.count >= 2 + count else { return nil }
                let data = Array(buffer[2..<(2 + count)])
                drop(2 + count, skipped: false)
                return .streamedData(data)
            }
            skipToHeader()
            guard buffer.count >= UFRPacket.size else { return nil }
            guard let kind = UFRPacketKind(header: buffer[0]), buffer[2] == kind.trailer else {
                drop(1, skipped: true)
                continue
            }
            let packet: UFRPacket
            do {
                packet = try UFRPacket(decoding: buffer[0..<UFRPacket.size])
            } catch {
                drop(1, skipped: true)
                throw error
            }
            if kind == .acknowledgement {
                drop(UFRPacket.size, skipped: false)
                return .acknowledgement(UFRCommandCode(rawValue: packet.code))
            }
            let extensionLength = Int(packet.extensionLength)
            guard buffer.count >= UFRPacket.size + extensionLength else { return nil }
            var data: [UInt8] = []
            if extensionLength > 0 {
                let block = buffer[UFRPacket.size..<(UFRPacket.size + extensionLength)]
                data = Array(block.dropLast())
                let expected = UFRChecksum.of(data)
                let found = block[block.index(before: block.endIndex)]
                guard found == expected else {
                    drop(UFRPacket.size + extensionLength, skipped: false)
                    throw .badExtensionChecksum(expected: expected, found: found)
                }
            }
            drop(UFRPacket.size + extensionLength, skipped: false)
            let outcome: UFRReply.Outcome =
                kind == .response
                ? .response(UFRCommandCode(rawValue: packet.code)) : .error(UFRStatus(rawValue: packet.code))
            return .reply(
                UFRReply(
                    outcome: outcome, value0: packet.parameter0, value1: packet.parameter1, extensionData: data))
        }
    }

    private mutating func skipToHeader() {
        let streaming = acceptsStreamedData
        let start =
            buffer.firstIndex(where: { byte in
                (streaming && byte == 0x00) || (UFRPacketKind(header: byte).map { $0 != .command } ?? false)
            }) ?? buffer.count
        if start > 0 { drop(start, skipped: true) }
    }

    private mutating func drop(_ count: Int, skipped: Bool) {
        let count = min(count, buffer.count)
        buffer.removeFirst(count)
        if skipped { skippedByteCount += count }
    }
}
