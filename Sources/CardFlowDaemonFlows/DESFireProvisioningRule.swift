import CardFlow
import CardFlowDESFire
import CardFlowDaemon
import CardFlowDaemonControl

/// The parameters of a `desfire-provision` flow, as a rule or request gives them:
///
/// ```json
/// {"kind": "desfire-provision", "aid": "010203", "file": 1, "size": 64, "comm": "enc",
///  "keySlot": 2, "piccKeySlot": 1, "text": "door 17"}
/// ```
///
/// Keys are named by key-store slot only (`keySlot`: the application's AES key 0; `piccKeySlot`:
/// the card master key, factory DES 8×00 when absent), so they never appear in the configuration,
/// the job log or the logs.
///
/// With `"diversify": true`, `keySlot` holds an AES master key that no card receives: each card
/// gets its own key 0, derived by NXP AN10922 from its UID, the application ID and the optional
/// `systemIdentifier` (hex, up to 18 bytes, so that `UID ‖ AID ‖ system identifier` stays within
/// AN10922's 31 bytes even for a 10-byte UID):
///
/// ```json
/// {"kind": "desfire-provision", "aid": "010203", "file": 1, "size": 64, "keySlot": 2,
///  "diversify": true, "systemIdentifier": "4E585020416275", "text": "door 17"}
/// ```
public struct DESFireProvisioningRule: DaemonFlow, Hashable {
    public static let kind = "desfire-provision"
    public static let writesToCard = true
    public static let personalisesCard = true

    public var aid: [UInt8]
    public var file: UInt8
    public var size: Int
    /// `plain`, `mac` or `enc`.
    public var comm: String
    public var keySlot: Int
    public var piccKeySlot: Int?
    public var data: [UInt8]
    /// Whether `keySlot` holds an AN10922 master key and each card gets its own derived key.
    public var diversify: Bool
    /// The system identifier of the AN10922 input (with ``diversify`` only; may be empty).
    public var systemIdentifier: [UInt8]

    /// The longest `systemIdentifier`: 31 bytes of AN10922 input less a 10-byte UID and the 3-byte AID.
    public static let maximumSystemIdentifierLength = 18

    public init(
        aid: [UInt8], file: UInt8, size: Int, comm: String, keySlot: Int, piccKeySlot: Int? = nil, data: [UInt8]
    ) {
        self.init(
            aid: aid, file: file, size: size, comm: comm, keySlot: keySlot, piccKeySlot: piccKeySlot, data: data,
            diversify: false)
    }

    /// A rule whose application key is diversified per card (`diversify`) or shared.
    public init(
        aid: [UInt8], file: UInt8, size: Int, comm: String, keySlot: Int, piccKeySlot: Int? = nil, data: [UInt8],
        diversify: Bool, systemIdentifier: [UInt8] = []
    ) {
        self.aid = aid
        self.file = file
        self.size = size
        self.comm = comm
        self.keySlot = keySlot
        self.piccKeySlot = piccKeySlot
        self.data = data
        self.diversify = diversify
        self.systemIdentifier = systemIdentifier
    }

    enum CodingKeys: String, CodingKey {
        case aid, file, size, comm, keySlot, piccKeySlot, data, text, diversify, systemIdentifier
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        aid = try container.decode(HexBytes.self, forKey: .aid).bytes
        file = try container.decode(UInt8.self, forKey: .file)
        size = try container.decode(Int.self, forKey: .size)
        comm = try container.decodeIfPresent(String.self, forKey: .comm) ?? "enc"
        keySlot = try container.decode(Int.self, forKey: .keySlot)
        piccKeySlot = try container.decodeIfPresent(Int.self, forKey: .piccKeySlot)
        if let text = try container.decodeIfPresent(String.self, forKey: .text) {
            data = Array(text.utf8)
        } else {
            data = try container.decode(HexBytes.self, forKey: .data).bytes
        }
        diversify = try container.decodeIfPresent(Bool.self, forKey: .diversify) ?? false
        let identifier = try container.decodeIfPresent(HexBytes.self, forKey: .systemIdentifier)
        systemIdentifier = identifier?.bytes ?? []
        func fail(_ key: CodingKeys, _ message: String) -> DecodingError {
            DecodingError.dataCorruptedError(forKey: key, in: container, debugDescription: message)
        }
        guard aid.count == 3, aid != [0, 0, 0] else {
            throw fail(.aid, "an application ID of 3 bytes other than 000000")
        }
        guard file <= 31 else { throw fail(.file, "a file number from 0 to 31") }
        guard (1...7936).contains(size) else { throw fail(.size, "a file size from 1 to 7936 bytes") }
        guard ["plain", "mac", "enc"].contains(comm) else { throw fail(.comm, "plain, mac or enc") }
        guard (0...15).contains(keySlot) else { throw fail(.keySlot, "a key-store slot from 0 to 15") }
        if let piccKeySlot, !(0...15).contains(piccKeySlot) {
            throw fail(.piccKeySlot, "a key-store slot from 0 to 15")
        }
        guard !data.isEmpty, data.count <= size else { throw fail(.data, "1 to \(size) bytes of data (or text)") }
        guard identifier == nil || diversify else {
            throw fail(.systemIdentifier, "a system identifier only with \"diversify\": true")
        }
        guard systemIdentifier.count <= Self.maximumSystemIdentifierLength else {
            throw fail(
                .systemIdentifier,
                "a system identifier of 0 to \(Self.maximumSystemIdentifierLength) bytes (AN10922 input: UID ‖ AID ‖ it, 31 bytes at most)"
            )
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(HexBytes(aid), forKey: .aid)
        try container.encode(file, forKey: .file)
        try container.encode(size, forKey: .size)
        try container.encode(comm, forKey: .comm)
        try container.encode(keySlot, forKey: .keySlot)
        try container.encodeIfPresent(piccKeySlot, forKey: .piccKeySlot)
        try container.encode(HexBytes(data), forKey: .data)
        if diversify {
            try container.encode(true, forKey: .diversify)
            if !systemIdentifier.isEmpty { try container.encode(HexBytes(systemIdentifier), forKey: .systemIdentifier) }
        }
    }
}

extension DESFireProvisioningRule {
    /// Format, AES application, key 0, a standard file, write and read back; the keys from the
    /// key store's slots, checked before a card is touched.
    public func job(_ context: DaemonFlowContext) async throws -> FlowJob {
        let keys = try context.requiredKeys()
        let key = try await DESFireKey(slot: try KeySlot(keySlot), in: keys)
        var piccKey = DESFireKey.defaultDES
        if let slot = piccKeySlot { piccKey = try await DESFireKey(slot: try KeySlot(slot), in: keys) }
        // Diversified: the slot holds the AN10922 master key; a non-AES one fails here, before a card is touched.
        let applicationKey: DESFireProvisioning.ApplicationKeySource =
            diversify
            ? .diversified(try DESFireKeyDiversification(masterKey: key, systemIdentifier: systemIdentifier))
            : .shared(key)
        let provisioning = DESFireProvisioning(
            application: try DESFireApplicationID(UInt32(aid[0]) << 16 | UInt32(aid[1]) << 8 | UInt32(aid[2])),
            file: file, size: size, commMode: DESFireCommMode(name: comm) ?? .enciphered,
            applicationKey: applicationKey, data: data, piccKey: piccKey)
        try provisioning.validate()
        let aid = self.aid
        let diversify = self.diversify
        let flow = provisioning.flow().map { result in
            var values = [
                "uid": result.uid.hexString, "aid": aid.hexString, "file": "\(result.file)",
                "written": "\(result.readBack.count) bytes",
            ]
            if diversify { values["key"] = "diversified (AN10922)" }
            return JobOutcome(values)
        }
        return FlowJob(flow: flow, policy: { provisioning.policy(base: $0) })
    }
}

extension FlowSpecification {
    /// Provision a MIFARE DESFire EV1 card (``DESFireProvisioningRule``).
    public static func desfireProvision(_ rule: DESFireProvisioningRule) -> FlowSpecification {
        FlowSpecification(rule)
    }
}
