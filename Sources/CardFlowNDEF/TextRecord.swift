/// The NFC Forum well-known Text record (type `T`): text with an IANA language code.
///
/// Payload: a status byte (bit 7: 1 = UTF-16, 0 = UTF-8; bit 6 reserved; bits 0-5 the
/// language code length), the ASCII language code, then the text. UTF-16 text may start with
/// a byte order mark; without one it is big-endian.
///
/// ```swift
/// let hello = try TextRecord("Hello, world!", language: "en")
/// hello.record.payload  // 02 "en" "Hello, world!"
/// let back = try TextRecord(hello.record)
/// back.text            // "Hello, world!"
/// ```
public struct TextRecord: NDEFRecordView {
    /// How the text is encoded in the payload.
    public enum Encoding: Sendable, Hashable {
        case utf8
        /// UTF-16; encoded big-endian with a byte order mark (FE FF).
        case utf16
    }

    /// The text.
    public var text: String
    /// The IANA language code (RFC 5646), such as `en` or `de-CH`; at most 63 ASCII characters.
    public var language: String
    /// The encoding in the payload.
    public var encoding: Encoding
    /// The record ID (usually empty).
    public var id: [UInt8]

    /// A Text record. Throws ``NDEFEncodingError/invalidLanguageCode(_:)`` for a language code
    /// longer than 63 bytes or not ASCII.
    public init(_ text: String, language: String = "en", encoding: Encoding = .utf8, id: [UInt8] = [])
        throws(NDEFEncodingError)
    {
        guard language.utf8.count <= 63, language.utf8.allSatisfy({ $0 < 0x80 }) else {
            throw .invalidLanguageCode(language)
        }
        self.text = text
        self.language = language
        self.encoding = encoding
        self.id = id
    }

    public init(_ record: NDEFRecord, mode: NDEFDecodingMode) throws(NDEFDecodingError) {
        guard record.isWellKnown("T") else {
            throw NDEFDecodingError(offset: 0, record: nil, problem: .wrongRecordType(expected: "Text (T)"))
        }
        let payload = record.payload
        guard let status = payload.first else {
            throw NDEFDecodingError(offset: 0, record: nil, problem: .payloadTooShort(needed: 1, available: 0))
        }
        if mode == .strict, status & 0x40 != 0 {
            throw NDEFDecodingError(offset: 0, record: nil, problem: .reservedBits(mask: 0x40))
        }
        let languageLength = Int(status & 0x3F)
        guard payload.count >= 1 + languageLength else {
            throw NDEFDecodingError(
                offset: 1, record: nil,
                problem: .payloadTooShort(needed: languageLength, available: payload.count - 1))
        }
        let languageBytes = payload[1..<(1 + languageLength)]
        if mode == .strict, !languageBytes.allSatisfy({ $0 < 0x80 }) {
            throw NDEFDecodingError(offset: 1, record: nil, problem: .invalidText(encoding: "ASCII"))
        }
        let textStart = 1 + languageLength
        let textBytes = payload[textStart...]
        if status & 0x80 != 0 {
            encoding = .utf16
            guard let decoded = Self.decodeUTF16(textBytes, strict: mode == .strict) else {
                throw NDEFDecodingError(offset: textStart, record: nil, problem: .invalidText(encoding: "UTF-16"))
            }
            text = decoded
        } else {
            encoding = .utf8
            if let decoded = String(validating: textBytes, as: UTF8.self) {
                text = decoded
            } else if mode == .lenient {
                text = String(decoding: textBytes, as: UTF8.self)
            } else {
                throw NDEFDecodingError(offset: textStart, record: nil, problem: .invalidText(encoding: "UTF-8"))
            }
        }
        language = String(decoding: languageBytes, as: UTF8.self)
        id = record.id
    }

    /// UTF-16 with an optional BOM (big-endian without one). Nil for an odd byte count or, when
    /// strict, unpaired surrogates.
    static func decodeUTF16(_ bytes: ArraySlice<UInt8>, strict: Bool) -> String? {
        guard bytes.count % 2 == 0 else { return nil }
        var body = bytes
        var littleEndian = false
        if body.count >= 2 {
            let first = body[body.startIndex]
            let second = body[body.startIndex + 1]
            if first == 0xFF && second == 0xFE {
                littleEndian = true
                body = body.dropFirst(2)
            } else if first == 0xFE && second == 0xFF {
                body = body.dropFirst(2)
            }
        }
        var units: [UInt16] = []
        units.reserveCapacity(body.count / 2)
        var index = body.startIndex
        while index < body.endIndex {
            let a = UInt16(body[index])
            let b = UInt16(body[index + 1])
            units.append(littleEndian ? (b << 8 | a) : (a << 8 | b))
            index += 2
        }
        if strict { return String(validating: units, as: UTF16.self) }
        return String(decoding: units, as: UTF16.self)
    }

    public var record: NDEFRecord {
        let languageBytes = Array(language.utf8.prefix(63))
        var payload: [UInt8] = [UInt8(languageBytes.count) | (encoding == .utf16 ? 0x80 : 0)]
        payload += languageBytes
        switch encoding {
        case .utf8:
            payload += Array(text.utf8)
        case .utf16:
            payload += [0xFE, 0xFF]
            for unit in text.utf16 { payload += [UInt8(unit >> 8), UInt8(unit & 0xFF)] }
        }
        return NDEFRecord(wellKnown: "T", id: id, payload: payload)
    }
}
