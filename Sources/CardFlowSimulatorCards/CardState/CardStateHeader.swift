/// The envelope fields of a card state file, read before the card itself (internal).
struct CardStateHeader: Codable, Sendable {
    /// State file format; ``CardStateStore/formatVersion``.
    var format: Int
    /// ``VirtualCard/kind`` of the stored card.
    var kind: String
}
