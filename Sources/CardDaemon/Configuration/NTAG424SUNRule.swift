import DESFire

/// The parameters of an `ntag424-sun` flow: personalise an NTAG 424 DNA for SUN URLs.
///
/// ```json
/// {"kind": "ntag424-sun", "url": "https://example.org/tap", "metaKeySlot": 3, "fileKeySlot": 4}
/// ```
///
/// Keys are named by key-store slot only: `metaKeySlot` becomes key 2 (SDMMetaReadKey, enciphers
/// PICCData), `fileKeySlot` key 1 (SDMFileReadKey, the SDMMAC); both need a version other than 0.
/// `masterKeySlot` is key 0 to authenticate with, the factory 16 × 00 when absent. The other
/// keys are optional: `key3Slot` and `key4Slot` install keys 3 and 4, `newMasterKeySlot` changes
/// key 0 last (its version must differ from the old key 0's). The URL may place the mirrors
/// with `{picc}` and `{mac}` (see ``/DESFire/NTAG424SUNTemplate``).
public struct NTAG424SUNRule: Sendable, Hashable, Codable {
    public var url: String
    public var metaKeySlot: Int
    public var fileKeySlot: Int
    public var masterKeySlot: Int?
    public var key3Slot: Int?
    public var key4Slot: Int?
    public var newMasterKeySlot: Int?

    public init(
        url: String, metaKeySlot: Int, fileKeySlot: Int, masterKeySlot: Int? = nil, key3Slot: Int? = nil,
        key4Slot: Int? = nil, newMasterKeySlot: Int? = nil
    ) {
        self.url = url
        self.metaKeySlot = metaKeySlot
        self.fileKeySlot = fileKeySlot
        self.masterKeySlot = masterKeySlot
        self.key3Slot = key3Slot
        self.key4Slot = key4Slot
        self.newMasterKeySlot = newMasterKeySlot
    }

    enum CodingKeys: String, CodingKey {
        case url, metaKeySlot, fileKeySlot, masterKeySlot, key3Slot, key4Slot, newMasterKeySlot
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        url = try container.decode(String.self, forKey: .url)
        metaKeySlot = try container.decode(Int.self, forKey: .metaKeySlot)
        fileKeySlot = try container.decode(Int.self, forKey: .fileKeySlot)
        masterKeySlot = try container.decodeIfPresent(Int.self, forKey: .masterKeySlot)
        key3Slot = try container.decodeIfPresent(Int.self, forKey: .key3Slot)
        key4Slot = try container.decodeIfPresent(Int.self, forKey: .key4Slot)
        newMasterKeySlot = try container.decodeIfPresent(Int.self, forKey: .newMasterKeySlot)
        func fail(_ key: CodingKeys, _ message: String) -> DecodingError {
            DecodingError.dataCorruptedError(forKey: key, in: container, debugDescription: message)
        }
        // The template is what the tag gets: a URL too long for the NDEF file fails here, not on a tag.
        guard (try? NTAG424SUNTemplate(url: url)) != nil else {
            throw fail(
                .url,
                "a URL that fits the 256-byte NDEF file with its placeholders ({picc} before {mac}, once each, or none)"
            )
        }
        for (key, slot) in [(CodingKeys.metaKeySlot, metaKeySlot), (.fileKeySlot, fileKeySlot)]
        where !(0...15).contains(slot) {
            throw fail(key, "a key-store slot from 0 to 15")
        }
        for (key, slot) in [
            (CodingKeys.masterKeySlot, masterKeySlot), (.key3Slot, key3Slot), (.key4Slot, key4Slot),
            (.newMasterKeySlot, newMasterKeySlot),
        ] {
            if let slot, !(0...15).contains(slot) { throw fail(key, "a key-store slot from 0 to 15") }
        }
    }
}
