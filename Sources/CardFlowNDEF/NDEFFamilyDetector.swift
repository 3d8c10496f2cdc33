import CardFlow

/// Recognises an NFC Forum tag holding NDEF (family `ndef`): a storage card with a Type 2
/// capability container on page 3, or an ISO-DEP card whose NDEF Tag Application has a
/// Type 4 capability container.
public struct NDEFFamilyDetector: CardFamilyDetector {
    public let family = "ndef"

    public init() {}

    public func matches(_ card: CardFamilyProbe) async throws -> Bool {
        if card.isStorageCard {
            return try await card.answers { _ = try await Type2Tag(channel: card.channel).capabilityContainer() }
        }
        return try await card.answers { _ = try await Type4Tag(channel: card.channel).capabilityContainer() }
    }
}
