/// An NDEF message: one or more ``NDEFRecord``s, encoded back to back with the MB flag on the
/// first record and the ME flag on the last.
///
/// ```swift
/// // A URI record for https://www.github.com (identifier code 0x02 = "https://www."):
/// let message = try NDEFMessage(decoding: [0xD1, 0x01, 0x0B, 0x55, 0x02] + Array("github.com".utf8))
/// let uri = try URIRecord(message.records[0]).uri   // "https://www.github.com"
///
/// let bytes = try NDEFMessage([URIRecord("https://example.com").record]).encoded()
/// // D1 01 0C 55 04 "example.com"
/// ```
///
/// Decoding reassembles chunked records (CF flag, continuation chunks with TNF 0x06) into one
/// record; ``encoded(chunkSize:)`` can split payloads into chunks again.
public struct NDEFMessage: Sendable, Hashable {
    /// The records, chunked records reassembled.
    public var records: [NDEFRecord]

    public init(_ records: [NDEFRecord]) {
        self.records = records
    }

    /// Decodes a message. Never reads beyond `bytes`, whatever lengths the headers declare.
    ///
    /// - Parameters:
    ///   - bytes: the message; in ``NDEFDecodingMode/strict`` mode exactly one message.
    ///   - mode: how strictly to hold the bytes to the NDEF specification.
    /// - Throws: ``NDEFDecodingError`` with the offset of the wrong bytes.
    public init(decoding bytes: [UInt8], mode: NDEFDecodingMode = .strict) throws(NDEFDecodingError) {
        var decoder = MessageDecoder(bytes: bytes, mode: mode)
        records = try decoder.decode()
    }

    /// The encoded message.
    ///
    /// - Parameter chunkSize: if given, payloads longer than this are split into chunks of at
    ///   most `chunkSize` bytes (the first chunk carries TNF, TYPE and ID; the others TNF 0x06).
    /// - Throws: ``NDEFEncodingError`` for records that cannot be encoded, or no records.
    public func encoded(chunkSize: Int? = nil) throws(NDEFEncodingError) -> [UInt8] {
        guard !records.isEmpty else { throw .noRecords }
        var bytes: [UInt8] = []
        for (index, record) in records.enumerated() {
            try record.encode(into: &bytes, first: index == 0, last: index == records.count - 1, chunkSize: chunkSize)
        }
        return bytes
    }
}

/// The wire decoder behind ``NDEFMessage/init(decoding:mode:)``.
private struct MessageDecoder {
    let bytes: [UInt8]
    let mode: NDEFDecodingMode
    var offset = 0
    var headerIndex = 0

    init(bytes: [UInt8], mode: NDEFDecodingMode) {
        self.bytes = bytes
        self.mode = mode
    }

    var strict: Bool { mode == .strict }

    /// One record header and its fields as on the wire.
    struct Chunk {
        let start: Int
        let index: Int
        let flags: UInt8
        let tnf: TypeNameFormat
        let type: [UInt8]
        let id: [UInt8]
        let payload: ArraySlice<UInt8>
        var messageBegin: Bool { flags & NDEFRecord.Flag.messageBegin != 0 }
        var messageEnd: Bool { flags & NDEFRecord.Flag.messageEnd != 0 }
        var chunked: Bool { flags & NDEFRecord.Flag.chunk != 0 }
        var hasIDLength: Bool { flags & NDEFRecord.Flag.idLength != 0 }
    }

    func error(_ problem: NDEFDecodingError.Problem, at offset: Int, record: Int?) -> NDEFDecodingError {
        NDEFDecodingError(offset: offset, record: record, problem: problem)
    }

    /// Reads `count` bytes of `field` at the current offset.
    mutating func take(_ count: Int, _ field: NDEFDecodingError.Field) throws(NDEFDecodingError) -> ArraySlice<UInt8> {
        let available = bytes.count - offset
        guard count <= available else {
            throw error(.truncated(field, needed: count, available: available), at: offset, record: headerIndex)
        }
        defer { offset += count }
        return bytes[offset..<(offset + count)]
    }

    mutating func readChunk() throws(NDEFDecodingError) -> Chunk {
        let start = offset
        let flags = try take(1, .header).first!
        let tnf = TypeNameFormat(rawValue: flags & NDEFRecord.Flag.tnfMask)!
        if tnf == .reserved && strict {
            throw error(.reservedTypeNameFormat, at: start, record: headerIndex)
        }
        let typeLength = Int(try take(1, .typeLength).first!)
        let payloadLength: Int
        if flags & NDEFRecord.Flag.shortRecord != 0 {
            payloadLength = Int(try take(1, .payloadLength).first!)
        } else {
            payloadLength = try take(4, .payloadLength).reduce(0) { $0 << 8 | Int($1) }
        }
        let hasIDLength = flags & NDEFRecord.Flag.idLength != 0
        let idLength = hasIDLength ? Int(try take(1, .idLength).first!) : 0
        if strict {
            switch tnf {
            case .empty:
                if hasIDLength { throw error(.idLengthInEmptyRecord, at: start, record: headerIndex) }
                if typeLength != 0 || payloadLength != 0 {
                    throw error(.fieldsInEmptyRecord, at: start + 1, record: headerIndex)
                }
            case .unknown, .unchanged:
                if typeLength != 0 { throw error(.typeNotAllowed(tnf), at: start + 1, record: headerIndex) }
            case .wellKnown, .media, .absoluteURI, .external:
                if typeLength == 0 { throw error(.missingType(tnf), at: start + 1, record: headerIndex) }
            case .reserved:
                break
            }
        }
        let type = Array(try take(typeLength, .type))
        let id = Array(try take(idLength, .id))
        let payload = try take(payloadLength, .payload)
        defer { headerIndex += 1 }
        return Chunk(start: start, index: headerIndex, flags: flags, tnf: tnf, type: type, id: id, payload: payload)
    }

    mutating func decode() throws(NDEFDecodingError) -> [NDEFRecord] {
        if bytes.isEmpty {
            if strict { throw error(.empty, at: 0, record: nil) }
            return []
        }
        var records: [NDEFRecord] = []
        var sawEnd = false
        while offset < bytes.count {
            let first = try readChunk()
            if strict {
                if first.index == 0 && !first.messageBegin {
                    throw error(.missingMessageBegin, at: first.start, record: first.index)
                }
                if first.index > 0 && first.messageBegin {
                    throw error(.unexpectedMessageBegin, at: first.start, record: first.index)
                }
            }
            if first.tnf == .unchanged {
                throw error(.unexpectedUnchanged, at: first.start, record: first.index)
            }
            // An empty record carries no payload, so it cannot be chunked: continuation chunks
            // would give it one (found by the ndef-message fuzz target).
            if strict, first.tnf == .empty, first.chunked {
                throw error(.fieldsInEmptyRecord, at: first.start, record: first.index)
            }
            var record = NDEFRecord(tnf: first.tnf, type: first.type, id: first.id, payload: Array(first.payload))
            var last = first
            while last.chunked {
                if last.messageEnd || offset >= bytes.count {
                    throw error(.unterminatedChunkedRecord, at: last.start, record: last.index)
                }
                let next = try readChunk()
                if next.tnf != .unchanged {
                    throw error(.chunkNotUnchanged(next.tnf), at: next.start, record: next.index)
                }
                if strict {
                    if next.messageBegin { throw error(.messageBeginInChunk, at: next.start, record: next.index) }
                    if next.hasIDLength || !next.id.isEmpty {
                        throw error(.idInContinuationChunk, at: next.start, record: next.index)
                    }
                }
                record.payload += next.payload
                last = next
            }
            records.append(record)
            if last.messageEnd {
                sawEnd = true
                break
            }
        }
        if sawEnd, offset < bytes.count, strict {
            throw error(.trailingBytes(count: bytes.count - offset), at: offset, record: nil)
        }
        if !sawEnd, strict {
            throw error(.missingMessageEnd, at: bytes.count, record: nil)
        }
        return records
    }
}
