/// A flow a rule or a control request names: `{"kind": "...", ...parameters}`.
///
/// Keys are never inline: flows that need one name a key-store slot.
public enum FlowSpecification: Sendable, Hashable, Codable {
    /// Identify the card (ATR, UID) and record it; nothing is written.
    case report
    /// Send these APDUs in order; with `expect`, every answer must carry that status word.
    case apdus([[UInt8]], expect: UInt16?)
    /// Write an NDEF message with one URI or text record (Type 2, 4 or 5 tags).
    case ndefWrite(NDEFContent)
    /// Read the NDEF message.
    case ndefRead
    /// Read `count` blocks from `first` of an ISO 15693 tag.
    case iso15693Read(first: Int, count: Int)
    /// Provision a MIFARE DESFire EV1 card: format, AES application, key 0 from a key-store slot,
    /// a standard file, write and read back.
    case desfireProvision(DESFireProvisioningRule)
    /// Personalise an NTAG 424 DNA for SUN: SDM keys from key-store slots, the URL, SDM on.
    case ntag424SUN(NTAG424SUNRule)
    /// Top up or charge a MIFARE Classic value block, the sector key from the key store.
    case classicValue(ClassicValueRule)
    /// Write NDEF on an NTAG21x / Ultralight EV1, then protect it with a password (PWD, PACK,
    /// AUTH0, PROT).
    case ntagNDEFProtect(NTAGNDEFRule)
    /// Activate a TON Labs security card with activation data from the key store.
    case tonActivate(TONActivationRule)
    /// Relay a remote service's APDUs to the card (docs/relay-protocol.md).
    case relay(RelayRule)
    /// Personalise the card with a record claimed from the fleet's batch (configuration
    /// `fleet`): the record's parameters over the template's.
    case fleet(FleetFlowTemplate)

    /// What an NDEF write puts on the tag.
    public enum NDEFContent: Sendable, Hashable {
        case uri(String)
        case text(String)
    }

    /// The name the job log and progress show.
    public var kind: String {
        switch self {
        case .report: "report"
        case .apdus: "apdu"
        case .ndefWrite: "ndef-write"
        case .ndefRead: "ndef-read"
        case .iso15693Read: "iso15693-read"
        case .desfireProvision: "desfire-provision"
        case .ntag424SUN: "ntag424-sun"
        case .classicValue: "classic-value"
        case .ntagNDEFProtect: "ntag-ndef-protect"
        case .tonActivate: "ton-activate"
        case .relay: "relay"
        case .fleet: "fleet"
        }
    }

    /// Whether running it twice on the same card is harmless (the job log marks others for checking
    /// after an interruption).
    public var writesToCard: Bool {
        switch self {
        case .report, .ndefRead, .iso15693Read: false
        case .apdus, .ndefWrite, .desfireProvision, .ntag424SUN, .classicValue, .ntagNDEFProtect, .tonActivate,
            .relay, .fleet:
            true
        }
    }

    enum CodingKeys: String, CodingKey { case kind, apdus, expect, uri, text, first, count }

    private static let kinds =
        "report, apdu, ndef-write, ndef-read, iso15693-read, desfire-provision, ntag424-sun, classic-value, "
        + "ntag-ndef-protect, ton-activate, relay, fleet"

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let kind = try container.decode(String.self, forKey: .kind)
        switch kind {
        case "report": self = .report
        case "apdu":
            let apdus = try container.decode([HexBytes].self, forKey: .apdus).map(\.bytes)
            guard !apdus.isEmpty, apdus.count <= 1024, apdus.allSatisfy({ (4...65_544).contains($0.count) }) else {
                throw DecodingError.dataCorruptedError(
                    forKey: .apdus, in: container,
                    debugDescription: "1 to 1024 APDUs of 4 to 65544 bytes")
            }
            var expect: UInt16?
            if let text = try container.decodeIfPresent(String.self, forKey: .expect) {
                guard text.count == 4, let value = UInt16(text, radix: 16) else {
                    throw DecodingError.dataCorruptedError(
                        forKey: .expect, in: container,
                        debugDescription: "a status word of 4 hex digits, e.g. 9000")
                }
                expect = value
            }
            self = .apdus(apdus, expect: expect)
        case "ndef-write":
            if let uri = try container.decodeIfPresent(String.self, forKey: .uri) {
                self = .ndefWrite(.uri(uri))
            } else if let text = try container.decodeIfPresent(String.self, forKey: .text) {
                self = .ndefWrite(.text(text))
            } else {
                throw DecodingError.keyNotFound(
                    CodingKeys.uri,
                    .init(
                        codingPath: container.codingPath,
                        debugDescription: "ndef-write needs 'uri' or 'text'"))
            }
        case "ndef-read": self = .ndefRead
        case "desfire-provision": self = .desfireProvision(try DESFireProvisioningRule(from: decoder))
        case "ntag424-sun": self = .ntag424SUN(try NTAG424SUNRule(from: decoder))
        case "classic-value": self = .classicValue(try ClassicValueRule(from: decoder))
        case "ntag-ndef-protect": self = .ntagNDEFProtect(try NTAGNDEFRule(from: decoder))
        case "ton-activate": self = .tonActivate(try TONActivationRule(from: decoder))
        case "relay": self = .relay(try RelayRule(from: decoder))
        case "fleet": self = .fleet(try FleetFlowTemplate(from: decoder))
        case "iso15693-read":
            let first = try container.decodeIfPresent(Int.self, forKey: .first) ?? 0
            let count = try container.decodeIfPresent(Int.self, forKey: .count) ?? 1
            guard (0...255).contains(first), (1...256).contains(count), first + count <= 256 else {
                throw DecodingError.dataCorruptedError(
                    forKey: .count, in: container,
                    debugDescription: "blocks from 0 to 255")
            }
            self = .iso15693Read(first: first, count: count)
        default:
            throw DecodingError.dataCorruptedError(
                forKey: .kind, in: container,
                debugDescription: "unknown flow kind '\(kind)'; known: \(Self.kinds)")
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(kind, forKey: .kind)
        switch self {
        case .report, .ndefRead: break
        case .apdus(let apdus, let expect):
            try container.encode(apdus.map(HexBytes.init), forKey: .apdus)
            if let expect {
                // Four digits, as the decoder requires: 0x0900 is "0900", not "900".
                let digits = String(expect, radix: 16, uppercase: true)
                try container.encode(String(repeating: "0", count: 4 - digits.count) + digits, forKey: .expect)
            }
        case .ndefWrite(.uri(let uri)): try container.encode(uri, forKey: .uri)
        case .ndefWrite(.text(let text)): try container.encode(text, forKey: .text)
        case .iso15693Read(let first, let count):
            try container.encode(first, forKey: .first)
            try container.encode(count, forKey: .count)
        case .desfireProvision(let rule):
            try rule.encode(to: encoder)
        case .ntag424SUN(let rule):
            try rule.encode(to: encoder)
        case .classicValue(let rule):
            try rule.encode(to: encoder)
        case .ntagNDEFProtect(let rule):
            try rule.encode(to: encoder)
        case .tonActivate(let rule):
            try rule.encode(to: encoder)
        case .relay(let rule):
            try rule.encode(to: encoder)
        case .fleet(let template):
            try template.encode(to: encoder)
        }
    }
}
