import CardFlow

/// One NDEF record: a type name format, a type, an optional ID and a payload.
///
/// A record holds the reassembled payload: chunks are a wire matter, handled by
/// ``NDEFMessage/encoded(chunkSize:)`` and ``NDEFMessage/init(decoding:mode:)``. The short-record
/// (SR) flag is chosen on encoding: payloads up to 255 bytes get a 1-byte PAYLOAD_LENGTH.
///
/// ```swift
/// let record = NDEFRecord(tnf: .media, type: Array("text/plain".utf8), id: [0x31], payload: Array("hi".utf8))
/// let bytes = try NDEFMessage([record]).encoded()
/// // DA 0A 02 01 "text/plain" "1" "hi"
/// ```
///
/// The record views (``TextRecord``, ``URIRecord``, ``SmartPosterRecord``, ``MIMERecord``,
/// ``ExternalTypeRecord``, ``AndroidApplicationRecord``) read and make records of their types.
public struct NDEFRecord: Sendable, Hashable {
    /// How to read ``type``.
    public var tnf: TypeNameFormat
    /// The TYPE field (at most 255 bytes), such as `U` for a well-known URI record.
    public var type: [UInt8]
    /// The ID field (at most 255 bytes; empty for none).
    public var id: [UInt8]
    /// The PAYLOAD (at most 2^32-1 bytes).
    public var payload: [UInt8]

    public init(tnf: TypeNameFormat, type: [UInt8] = [], id: [UInt8] = [], payload: [UInt8] = []) {
        self.tnf = tnf
        self.type = type
        self.id = id
        self.payload = payload
    }

    /// The empty record (TNF 0x00): what an "empty" NDEF tag holds, `D0 00 00` on its own.
    public static let empty = NDEFRecord(tnf: .empty)

    /// A well-known record (TNF 0x01) with the type given as text, such as `"T"` or `"Sp"`.
    public init(wellKnown type: String, id: [UInt8] = [], payload: [UInt8]) {
        self.init(tnf: .wellKnown, type: Array(type.utf8), id: id, payload: payload)
    }

    /// The type as text (types are ASCII by the specifications; other bytes are replaced).
    public var typeString: String { String(decoding: type, as: UTF8.self) }

    /// True for a well-known record of the given type, e.g. `isWellKnown("U")`.
    public func isWellKnown(_ name: String) -> Bool {
        tnf == .wellKnown && type == Array(name.utf8)
    }

    /// Checks the fields can be encoded: lengths within bounds and what each TNF allows.
    public func validateForEncoding() throws(NDEFEncodingError) {
        switch tnf {
        case .empty:
            guard type.isEmpty, id.isEmpty, payload.isEmpty else { throw .fieldsInEmptyRecord }
        case .unknown:
            guard type.isEmpty else { throw .typeNotAllowed(tnf) }
        case .wellKnown, .media, .absoluteURI, .external:
            guard !type.isEmpty else { throw .missingType(tnf) }
        case .unchanged, .reserved:
            throw .typeNameFormatNotEncodable(tnf)
        }
        guard type.count <= 255 else { throw .typeTooLong(type.count) }
        guard id.count <= 255 else { throw .idTooLong(id.count) }
        guard UInt64(payload.count) <= UInt64(UInt32.max) else { throw .payloadTooLong(payload.count) }
    }

    /// Header flag bits.
    enum Flag {
        static let messageBegin: UInt8 = 0x80
        static let messageEnd: UInt8 = 0x40
        static let chunk: UInt8 = 0x20
        static let shortRecord: UInt8 = 0x10
        static let idLength: UInt8 = 0x08
        static let tnfMask: UInt8 = 0x07
    }

    /// Appends the record (as chunks of at most `chunkSize` payload bytes, if given) to `bytes`.
    func encode(into bytes: inout [UInt8], first: Bool, last: Bool, chunkSize: Int?) throws(NDEFEncodingError) {
        try validateForEncoding()
        var chunks: [ArraySlice<UInt8>] = []
        if let chunkSize, payload.count > chunkSize {
            guard chunkSize >= 1 else { throw .invalidChunkSize(chunkSize) }
            var start = 0
            while start < payload.count {
                let end = min(start + chunkSize, payload.count)
                chunks.append(payload[start..<end])
                start = end
            }
        } else {
            if let chunkSize, chunkSize < 1 { throw .invalidChunkSize(chunkSize) }
            chunks = [payload[...]]
        }
        for (index, chunk) in chunks.enumerated() {
            let isFirstChunk = index == 0
            let isLastChunk = index == chunks.count - 1
            var flags: UInt8 = isFirstChunk ? tnf.rawValue : TypeNameFormat.unchanged.rawValue
            if first && isFirstChunk { flags |= Flag.messageBegin }
            if last && isLastChunk { flags |= Flag.messageEnd }
            if !isLastChunk { flags |= Flag.chunk }
            if chunk.count < 256 { flags |= Flag.shortRecord }
            let chunkType = isFirstChunk ? type : []
            let chunkID = isFirstChunk ? id : []
            if !chunkID.isEmpty { flags |= Flag.idLength }
            bytes.append(flags)
            bytes.append(UInt8(chunkType.count))
            if chunk.count < 256 {
                bytes.append(UInt8(chunk.count))
            } else {
                let length = UInt32(chunk.count)
                bytes += [
                    UInt8(length >> 24), UInt8(truncatingIfNeeded: length >> 16),
                    UInt8(truncatingIfNeeded: length >> 8), UInt8(truncatingIfNeeded: length),
                ]
            }
            if !chunkID.isEmpty { bytes.append(UInt8(chunkID.count)) }
            bytes += chunkType
            bytes += chunkID
            bytes += chunk
        }
    }
}

extension NDEFRecord: CustomStringConvertible {
    public var description: String {
        var text = "TNF 0x0\(tnf.rawValue) (\(tnf))"
        if !type.isEmpty { text += " type \"\(typeString)\"" }
        if !id.isEmpty { text += " id \(id.hexString)" }
        text += " payload \(payload.count) byte\(payload.count == 1 ? "" : "s")"
        if !payload.isEmpty && payload.count <= 64 { text += " \(payload.hexString)" }
        return text
    }
}
