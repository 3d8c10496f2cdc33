import CardFlow
import CardFlowDESFire
import CardFlowDaemon
import CardFlowDaemonControl

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
/// with `{picc}` and `{mac}` (see ``/CardFlowDESFire/NTAG424SUNTemplate``).
public struct NTAG424SUNRule: DaemonFlow, Hashable {
    public static let kind = "ntag424-sun"
    public static let writesToCard = true
    public static let personalisesCard = true

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

extension NTAG424SUNRule {
    /// Personalise the tag for SUN; empty slots and keys that are not AES or have version 0 fail
    /// before a tag is touched.
    public func job(_ context: DaemonFlowContext) async throws -> FlowJob {
        let keys = try context.requiredKeys()
        var masterKey = try DESFireKey(type: .aes, bytes: [UInt8](repeating: 0, count: 16))
        if let slot = masterKeySlot { masterKey = try await DESFireKey(slot: try KeySlot(slot), in: keys) }
        var otherKeys: [UInt8: DESFireKey] = [:]
        for (number, slot) in [(UInt8(3), key3Slot), (4, key4Slot)] {
            if let slot { otherKeys[number] = try await DESFireKey(slot: try KeySlot(slot), in: keys) }
        }
        var newMasterKey: DESFireKey?
        if let slot = newMasterKeySlot { newMasterKey = try await DESFireKey(slot: try KeySlot(slot), in: keys) }
        let plan = NTAG424SUNPersonalisation(
            template: try NTAG424SUNTemplate(url: url), masterKey: masterKey,
            metaReadKey: try await DESFireKey(slot: try KeySlot(metaKeySlot), in: keys),
            fileReadKey: try await DESFireKey(slot: try KeySlot(fileKeySlot), in: keys),
            otherKeys: otherKeys, newMasterKey: newMasterKey)
        try plan.validate()
        let url = self.url
        let flow = plan.flow().map { result in
            JobOutcome([
                "uid": result.uid.hexString, "url": url, "keysChanged": result.changedKeys ? "yes" : "no",
                "piccDataOffset": "\(plan.template.piccDataOffset)", "macOffset": "\(plan.template.macOffset)",
                "sunURL": result.url, "readCounter": result.message.readCounter.map { "\($0)" } ?? "",
            ])
        }
        return FlowJob(flow: flow)
    }
}

extension FlowSpecification {
    /// Personalise an NTAG 424 DNA for SUN (``NTAG424SUNRule``).
    public static func ntag424SUN(_ rule: NTAG424SUNRule) -> FlowSpecification {
        FlowSpecification(rule)
    }
}
