import CardFlow

/// Recognises the TON Labs security card (family `ton`): an ISO-DEP or contact card that
/// selects the TonWalletApplet.
public struct TONFamilyDetector: CardFamilyDetector {
    public let family = "ton"

    /// The TonWalletApplet's answer to its SELECT on a card without a seed: setting the Ed25519
    /// curve failed (the applet is there, selected, and waits for activation).
    public static let appletWithoutSeed = StatusWord(0x6F02)

    public init() {}

    /// SELECT of the TonWalletApplet is answered 9000 (or 6F02 before the seed exists) only by a
    /// TON card; other cards answer 6A82 (no such application).
    public func matches(_ card: CardFamilyProbe) async throws -> Bool {
        guard !card.isStorageCard else { return false }
        return try await card.answers {
            let response = try await card.channel.transmit(TONCommands.selectApplet)
            guard response.statusWord.isSuccess || response.statusWord == Self.appletWithoutSeed else {
                throw CardStatusError(statusWord: response.statusWord, command: TONCommands.selectApplet)
            }
        }
    }
}
