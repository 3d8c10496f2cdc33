import CardFlow

/// Which cards a rule applies to, and the flow it runs on them.
public struct CardRule: Sendable, Hashable, Codable {
    /// Shown in logs and in the job log.
    public var name: String
    public var match: CardMatch
    public var flow: FlowSpecification
    /// Reader signals when the rule's job succeeds or fails (none when nil).
    public var signals: RuleSignals?

    public init(name: String, match: CardMatch = CardMatch(), flow: FlowSpecification, signals: RuleSignals? = nil) {
        self.name = name
        self.match = match
        self.flow = flow
        self.signals = signals
    }

    enum CodingKeys: String, CodingKey { case name, match, flow, signals }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        name = try container.decode(String.self, forKey: .name)
        match = try container.decodeIfPresent(CardMatch.self, forKey: .match) ?? CardMatch()
        flow = try container.decode(FlowSpecification.self, forKey: .flow)
        signals = try container.decodeIfPresent(RuleSignals.self, forKey: .signals)
    }
}

/// What is known of a card when it arrives: its ATR, UID, which of the rules' AIDs it
/// answered a SELECT for, and its card family.
public struct CardFacts: Sendable, Hashable {
    public var atr: [UInt8]
    public var uid: [UInt8]?
    /// AIDs the card selected with 9000 (only the AIDs some rule asks for are tried).
    public var selectableAIDs: Set<[UInt8]>
    /// The family the daemon's ``/CardFlow/CardFamilyDetection`` named (`desfire`, `ton`, …);
    /// nil when none matched or no rule asks for a family (detection is skipped then).
    public var family: String?

    public init(atr: [UInt8], uid: [UInt8]?, selectableAIDs: Set<[UInt8]> = [], family: String? = nil) {
        self.atr = atr
        self.uid = uid
        self.selectableAIDs = selectableAIDs
        self.family = family
    }
}

/// Conditions on a card; every condition given must hold (an empty match takes every card).
public struct CardMatch: Sendable, Hashable, Codable {
    /// The ATR starts with these bytes (hex).
    public var atrPrefix: [UInt8]?
    /// The card answers SELECT of this AID with 9000 (hex).
    public var aid: [UInt8]?
    /// The UID has this many bytes (4, 7, 8, 10).
    public var uidLength: Int?
    /// The card is of this family (`desfire`, `ton`, `ndef`, `iso15693`, … as the daemon's
    /// card-family detectors name them; see ``ConfigurationStore/cardFamilies``).
    public var family: String?

    public init(atrPrefix: [UInt8]? = nil, aid: [UInt8]? = nil, uidLength: Int? = nil, family: String? = nil) {
        self.atrPrefix = atrPrefix
        self.aid = aid
        self.uidLength = uidLength
        self.family = family
    }

    enum CodingKeys: String, CodingKey { case atrPrefix, aid, uidLength, family }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        atrPrefix = try container.decodeIfPresent(HexBytes.self, forKey: .atrPrefix)?.bytes
        aid = try container.decodeIfPresent(HexBytes.self, forKey: .aid)?.bytes
        uidLength = try container.decodeIfPresent(Int.self, forKey: .uidLength)
        family = try container.decodeIfPresent(String.self, forKey: .family)
        if let aid, !(1...16).contains(aid.count) {
            throw DecodingError.dataCorruptedError(
                forKey: .aid, in: container, debugDescription: "an AID has 1 to 16 bytes")
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encodeIfPresent(atrPrefix.map(HexBytes.init), forKey: .atrPrefix)
        try container.encodeIfPresent(aid.map(HexBytes.init), forKey: .aid)
        try container.encodeIfPresent(uidLength, forKey: .uidLength)
        try container.encodeIfPresent(family, forKey: .family)
    }

    public func matches(_ card: CardFacts) -> Bool {
        if let atrPrefix, !card.atr.starts(with: atrPrefix) { return false }
        if let aid, !card.selectableAIDs.contains(aid) { return false }
        if let uidLength, card.uid?.count != uidLength { return false }
        if let family, card.family != family { return false }
        return true
    }
}

/// Bytes written as a hex string in JSON (spaces allowed).
public struct HexBytes: Sendable, Hashable, Codable {
    public var bytes: [UInt8]

    public init(_ bytes: [UInt8]) { self.bytes = bytes }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        do {
            bytes = try [UInt8](hex: text)
        } catch {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "\(error)")
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(bytes.hexString)
    }
}
