import CardFlow

/// Recognises NTAG21x and the MIFARE Ultralight family (family `ntag`: what `NTAGClient` drives)
/// from the PC/SC part 3 card name in the ATR (`00 03`, `00 3A`, `00 3D`). Listed after
/// `NDEFFamilyDetector`, it names the Type 2 tags that hold no NDEF capability container yet.
public struct NTAGFamilyDetector: CardFamilyDetector {
    public let family = "ntag"

    public init() {}

    public func matches(_ card: CardFamilyProbe) async throws -> Bool {
        switch StorageCardKind(atr: card.atr) {
        case .mifareUltralight, .mifareUltralightC, .mifareUltralightEV1: true
        default: false
        }
    }
}
