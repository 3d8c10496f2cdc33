import CardFlow

/// Recognises MIFARE DESFire EV1 and later (family `desfire`): an ISO-DEP or contact card that
/// answers GetVersion.
public struct DESFireFamilyDetector: CardFamilyDetector {
    public let family = "desfire"

    public init() {}

    public func matches(_ card: CardFamilyProbe) async throws -> Bool {
        guard !card.isStorageCard else { return false }
        return try await card.answers { _ = try await DESFireClient(channel: card.channel).getVersion() }
    }
}
