/// A card family whose operations `cardctl bench ops` can time.
public enum BenchCardFamily: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// MIFARE DESFire EV1 and later: authentication, data files in every comm mode.
    case desfire
    /// The TON Labs security card: PIN verification and Ed25519 signing.
    case ton
    /// An NFC Forum tag of Type 2, 4 or 5 holding an NDEF message.
    case ndef
    /// An ISO/IEC 15693 vicinity tag: block reads and writes.
    case iso15693

    public var description: String {
        switch self {
        case .desfire: "DESFire"
        case .ton: "TON card"
        case .ndef: "NDEF tag"
        case .iso15693: "ISO 15693 tag"
        }
    }
}
