import CardFlow

/// Recognises FeliCa (family `felica`) from the PC/SC part 3 card name in the ATR (`00 3B`).
public struct FeliCaFamilyDetector: CardFamilyDetector {
    public let family = "felica"

    public init() {}

    public func matches(_ card: CardFamilyProbe) async throws -> Bool {
        StorageCardKind(atr: card.atr) == .felica
    }
}
