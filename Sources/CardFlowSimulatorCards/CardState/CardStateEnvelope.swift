/// A card state file: format version, card kind and the card's persistent state (internal).
struct CardStateEnvelope<Card: PersistentVirtualCard>: Codable {
    var format: Int
    var kind: String
    var card: Card
}
