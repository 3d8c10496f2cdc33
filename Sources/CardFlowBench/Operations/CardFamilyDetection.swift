import CardFlow
import CardFlowDESFire
import CardFlowISO15693
import CardFlowNDEF
import CardFlowTONCard

extension BenchCardFamily {
    /// The families `bench ops` times, recognised by the families' own detectors (most specific
    /// first: the ISO 15693 ATR, then the TON applet, DESFire, NDEF).
    static let detection = CardFamilyDetection([
        ISO15693FamilyDetector(), TONFamilyDetector(), DESFireFamilyDetector(), NDEFFamilyDetector(),
    ])

    /// Which family a card belongs to, from its ATR and harmless probes; nothing is written.
    static func detect(atr: [UInt8], channel: any CardChannel) async throws -> BenchCardFamily? {
        try await detection.detect(atr: atr, channel: channel).flatMap(BenchCardFamily.init(rawValue:))
    }
}
