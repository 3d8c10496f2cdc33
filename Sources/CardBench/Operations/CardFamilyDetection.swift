import CardFlow
import DESFire
import NDEF
import TONCard

/// Which ``BenchCardFamily`` a card belongs to, from its ATR and harmless probes: the TON
/// applet's SELECT, DESFire GetVersion, the NDEF Tag Application's SELECT and capability
/// container, a Type 2 capability container read. Nothing is written.
enum CardFamilyDetection {
    /// ISO 15693 parts 1 to 4 in a PC/SC part 3 storage-card ATR.
    static let iso15693Standards: ClosedRange<UInt8> = 0x09...0x0C

    static func detect(atr: [UInt8], channel: any CardChannel) async throws -> BenchCardFamily? {
        let identification = ATRIdentification(atr: atr)
        switch identification.kind {
        case .contactlessStorage:
            if let standard = identification.standard?.rawValue, iso15693Standards.contains(standard) {
                return .iso15693
            }
            // Type 2 tags (NTAG, Ultralight): a capability container on page 3.
            return try await answers { _ = try await Type2Tag(channel: channel).capabilityContainer() } ? .ndef : nil
        case .contactlessISODEP, .contact, .malformed:
            if try await answers({ try await selectTONApplet(channel) }) { return .ton }
            if try await answers({ _ = try await DESFireClient(channel: channel).getVersion() }) { return .desfire }
            if try await answers({ _ = try await Type4Tag(channel: channel).capabilityContainer() }) { return .ndef }
            return nil
        }
    }

    /// The TonWalletApplet's answer to its SELECT on a card without a seed: setting the Ed25519
    /// curve failed (the applet is there, selected, and waits for activation).
    static let tonAppletWithoutSeed = StatusWord(0x6F02)

    /// SELECT of the TonWalletApplet, answered 9000 (or 6F02 before the seed exists) only by a
    /// TON card; other cards answer 6A82 (no such application).
    private static func selectTONApplet(_ channel: any CardChannel) async throws {
        let response = try await channel.transmit(TONCommands.selectApplet)
        guard response.statusWord.isSuccess || response.statusWord == tonAppletWithoutSeed else {
            throw CardStatusError(statusWord: response.statusWord, command: TONCommands.selectApplet)
        }
    }

    /// Whether `probe` succeeds; a lost card and cancellation are thrown, any other error is "no".
    private static func answers(_ probe: () async throws -> Void) async throws -> Bool {
        do {
            try await probe()
            return true
        } catch {
            if error.meansCardLost || error is CancellationError || Task.isCancelled { throw error }
            return false
        }
    }
}
