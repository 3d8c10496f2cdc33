import CardFlow

/// Recognises MIFARE Classic Mini, 1K and 4K (family `classic`) from the PC/SC part 3 card name
/// in the ATR: no probe is sent (a Classic block read needs a key first).
public struct ClassicFamilyDetector: CardFamilyDetector {
    public let family = "classic"

    public init() {}

    public func matches(_ card: CardFamilyProbe) async throws -> Bool {
        StorageCardKind(atr: card.atr)?.classicLayout != nil
    }
}
