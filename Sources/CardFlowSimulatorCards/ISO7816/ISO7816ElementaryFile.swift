import CardFlow

/// A transparent elementary file (EF) of an ``ISO7816Card``.
///
/// The file has a fixed size (the size of `content`); UPDATE BINARY cannot grow it.
public struct ISO7816ElementaryFile: Sendable, Hashable, Codable {
    /// The 2-byte file identifier.
    public var fileID: UInt16
    /// The short EF identifier (1…30) usable in READ/UPDATE BINARY `P1`, if any.
    public var shortFileID: UInt8?
    /// The file body.
    public var content: [UInt8]
    /// Whether READ BINARY is allowed (otherwise `69 82`).
    public var isReadable: Bool
    /// Whether UPDATE BINARY is allowed (otherwise `69 82`).
    public var isUpdatable: Bool

    /// Creates a transparent EF.
    ///
    /// - Parameters:
    ///   - fileID: file identifier.
    ///   - shortFileID: short EF identifier (1…30), or `nil`; other values are ignored.
    ///   - content: the file body; its length is the file size.
    ///   - isReadable: READ BINARY allowed.
    ///   - isUpdatable: UPDATE BINARY allowed.
    public init(
        fileID: UInt16, shortFileID: UInt8? = nil, content: [UInt8],
        isReadable: Bool = true, isUpdatable: Bool = true
    ) {
        self.fileID = fileID
        self.shortFileID = shortFileID.flatMap { (1...30).contains($0) ? $0 : nil }
        self.content = content
        self.isReadable = isReadable
        self.isUpdatable = isUpdatable
    }

    private enum CodingKeys: String, CodingKey {
        case fileID, shortFileID, content, isReadable, isUpdatable
    }

    /// Decodes an EF; `content` is a hexadecimal string.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let hex = try container.decode(String.self, forKey: .content)
        guard let content = [UInt8](persistedHex: hex) else {
            throw DecodingError.dataCorruptedError(
                forKey: .content, in: container, debugDescription: "content is not an even-length hex string")
        }
        let shortFileID = try container.decodeIfPresent(UInt8.self, forKey: .shortFileID)
        if let shortFileID, !(1...30).contains(shortFileID) {
            throw DecodingError.dataCorruptedError(
                forKey: .shortFileID, in: container, debugDescription: "short EF identifier must be 1…30")
        }
        self.init(
            fileID: try container.decode(UInt16.self, forKey: .fileID),
            shortFileID: shortFileID,
            content: content,
            isReadable: try container.decode(Bool.self, forKey: .isReadable),
            isUpdatable: try container.decode(Bool.self, forKey: .isUpdatable))
    }

    /// Encodes the EF; `content` becomes a hexadecimal string.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(fileID, forKey: .fileID)
        try container.encodeIfPresent(shortFileID, forKey: .shortFileID)
        try container.encode(content.hexString, forKey: .content)
        try container.encode(isReadable, forKey: .isReadable)
        try container.encode(isUpdatable, forKey: .isUpdatable)
    }
}
