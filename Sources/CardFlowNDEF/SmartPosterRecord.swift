/// The NFC Forum well-known Smart Poster record (type `Sp`): a URI with titles and hints,
/// carried as an NDEF message inside the payload.
///
/// The nested message holds exactly one URI record (`U`), any number of Title records (`T`,
/// one per language), and optionally an action (`act`, 1 byte), a size (`s`, 4 bytes
/// big-endian), a type (`t`, the media type of what the URI points to) and icons
/// (media-type records `image/…` or `video/…`). Other records are kept as they are.
///
/// ```swift
/// var poster = SmartPosterRecord(uri: URIRecord("https://nfc-forum.org"))
/// poster.titles = [try TextRecord("NFC Forum", language: "en")]
/// poster.action = .open
/// let bytes = try NDEFMessage([try poster.validatedRecord()]).encoded()
/// ```
public struct SmartPosterRecord: NDEFRecordView {
    /// The recommended action (`act` record) for the URI.
    public struct Action: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
        public var rawValue: UInt8
        public init(rawValue: UInt8) { self.rawValue = rawValue }
        /// 0: do the action (open the URI, send the SMS, call the number).
        public static let perform = Action(rawValue: 0)
        /// 1: save for later (bookmark, store the number).
        public static let save = Action(rawValue: 1)
        /// 2: open for editing.
        public static let open = Action(rawValue: 2)
        public var description: String {
            switch rawValue {
            case 0: "perform"
            case 1: "save"
            case 2: "open"
            default: "action \(rawValue)"
            }
        }
    }

    /// The URI the poster points to.
    public var uri: URIRecord
    /// Titles, one per language.
    public var titles: [TextRecord]
    /// The recommended action, if any.
    public var action: Action?
    /// The size of what the URI points to, in bytes, if given.
    public var size: UInt32?
    /// The media type of what the URI points to, if given.
    public var mediaType: String?
    /// Icons: media-type records of `image/…` or `video/…` types.
    public var icons: [NDEFRecord]
    /// Any other records of the nested message, kept in order.
    public var otherRecords: [NDEFRecord]
    /// The Smart Poster record's own ID.
    public var id: [UInt8]

    public init(
        uri: URIRecord, titles: [TextRecord] = [], action: Action? = nil, size: UInt32? = nil,
        mediaType: String? = nil, icons: [NDEFRecord] = [], otherRecords: [NDEFRecord] = [], id: [UInt8] = []
    ) {
        self.uri = uri
        self.titles = titles
        self.action = action
        self.size = size
        self.mediaType = mediaType
        self.icons = icons
        self.otherRecords = otherRecords
        self.id = id
    }

    /// The title in `language`, if there is one.
    public func title(language: String) -> String? {
        titles.first { $0.language.lowercased() == language.lowercased() }?.text
    }

    /// Reads a Smart Poster. Errors in the nested message carry offsets within this record's
    /// payload; errors in a nested URI or Text record, offsets within that record's payload.
    public init(_ record: NDEFRecord, mode: NDEFDecodingMode) throws(NDEFDecodingError) {
        guard record.isWellKnown("Sp") else {
            throw NDEFDecodingError(offset: 0, record: nil, problem: .wrongRecordType(expected: "Smart Poster (Sp)"))
        }
        let nested = try NDEFMessage(decoding: record.payload, mode: mode)
        var uris: [URIRecord] = []
        var titles: [TextRecord] = []
        var icons: [NDEFRecord] = []
        var others: [NDEFRecord] = []
        var action: Action?
        var size: UInt32?
        var mediaType: String?
        for inner in nested.records {
            if inner.isWellKnown("U") {
                uris.append(try URIRecord(inner, mode: mode))
            } else if inner.isWellKnown("T") {
                titles.append(try TextRecord(inner, mode: mode))
            } else if inner.isWellKnown("act") {
                guard inner.payload.count == 1 else {
                    throw NDEFDecodingError(
                        offset: 0, record: nil,
                        problem: .smartPosterFieldLength(name: "act", length: inner.payload.count))
                }
                action = Action(rawValue: inner.payload[0])
            } else if inner.isWellKnown("s") {
                guard inner.payload.count == 4 else {
                    throw NDEFDecodingError(
                        offset: 0, record: nil, problem: .smartPosterFieldLength(name: "s", length: inner.payload.count)
                    )
                }
                size = inner.payload.reduce(0) { $0 << 8 | UInt32($1) }
            } else if inner.isWellKnown("t") {
                mediaType = String(decoding: inner.payload, as: UTF8.self)
            } else if inner.tnf == .media, inner.typeString.hasPrefix("image/") || inner.typeString.hasPrefix("video/")
            {
                icons.append(inner)
            } else {
                others.append(inner)
            }
        }
        guard uris.count == 1 || (mode == .lenient && !uris.isEmpty) else {
            throw NDEFDecodingError(offset: 0, record: nil, problem: .smartPosterURICount(uris.count))
        }
        self.uri = uris[0]
        self.titles = titles
        self.action = action
        self.size = size
        self.mediaType = mediaType
        self.icons = icons
        self.otherRecords = others
        self.id = record.id
    }

    /// The nested message's records: URI, titles, action, size, type, icons, others.
    public var nestedRecords: [NDEFRecord] {
        var records = [uri.record] + titles.map(\.record)
        if let action { records.append(NDEFRecord(wellKnown: "act", payload: [action.rawValue])) }
        if let size {
            records.append(
                NDEFRecord(
                    wellKnown: "s",
                    payload: [
                        UInt8(size >> 24), UInt8(truncatingIfNeeded: size >> 16),
                        UInt8(truncatingIfNeeded: size >> 8), UInt8(truncatingIfNeeded: size),
                    ]))
        }
        if let mediaType { records.append(NDEFRecord(wellKnown: "t", payload: Array(mediaType.utf8))) }
        return records + icons + otherRecords
    }

    /// The Smart Poster record. Throws when a nested record cannot be encoded.
    public func validatedRecord() throws(NDEFEncodingError) -> NDEFRecord {
        NDEFRecord(wellKnown: "Sp", id: id, payload: try NDEFMessage(nestedRecords).encoded())
    }

    /// The Smart Poster record; an empty `Sp` record if a nested record cannot be encoded
    /// (use ``validatedRecord()`` to see why).
    public var record: NDEFRecord {
        (try? validatedRecord()) ?? NDEFRecord(wellKnown: "Sp", id: id, payload: [])
    }
}
