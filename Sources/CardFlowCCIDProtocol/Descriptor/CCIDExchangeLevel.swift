/// How a reader exchanges data with the card (dwFeatures bits 16-18, CCID 5.1).
///
/// The raw values are the names `cardctl list --json` prints.
public enum CCIDExchangeLevel: String, Sendable, Hashable, Codable, CaseIterable, CustomStringConvertible {
    /// The host drives the card byte by byte (T=0 procedure bytes, T=1 prologue); not supported.
    case character
    /// The host runs the T=1 block protocol; the reader moves blocks.
    case tpdu
    /// The reader takes short APDUs and does the transport protocol itself.
    case shortAPDU
    /// Like short APDU, plus extended APDUs chained over several messages.
    case extendedAPDU

    /// Decodes the level from dwFeatures. Readers announcing several level bits get the highest.
    public init(features: CCIDFeatures) {
        if features.contains(.extendedAPDULevel) {
            self = .extendedAPDU
        } else if features.contains(.shortAPDULevel) {
            self = .shortAPDU
        } else if features.contains(.tpduLevel) {
            self = .tpdu
        } else {
            self = .character
        }
    }

    public var description: String {
        switch self {
        case .character: "character level"
        case .tpdu: "TPDU level"
        case .shortAPDU: "short APDU level"
        case .extendedAPDU: "short and extended APDU level"
        }
    }
}
