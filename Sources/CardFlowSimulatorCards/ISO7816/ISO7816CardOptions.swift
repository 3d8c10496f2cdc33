/// Behaviour switches of an ``ISO7816Card``.
public struct ISO7816CardOptions: Sendable, Hashable, Codable {
    /// Whether the card accepts extended-length APDUs (command data up to 65 535 bytes,
    /// `Le` up to 65 536). When `false`, an extended APDU gets `67 00`.
    public var extendedLength: Bool

    /// The most response data bytes the card returns in one response APDU (1…65 536).
    ///
    /// A longer response is cut: the card returns this many bytes with `61 XX` and delivers the
    /// rest through GET RESPONSE (`00 C0 00 00 Le`). 256 models a short-only card; smaller
    /// values exercise the client's GET RESPONSE loop.
    public var maxResponseLength: Int

    /// When `true`, case 2 commands whose `Le` asks for more bytes than are available (READ
    /// BINARY past the end of the file, GET RESPONSE, including `Le = 00`) are refused with
    /// `6C XX`, XX = the available length, like T=0 cards do, instead of returning the shorter
    /// data (with `62 82` for READ BINARY).
    public var strictLe: Bool

    /// Creates options.
    ///
    /// - Parameters:
    ///   - extendedLength: accept extended-length APDUs.
    ///   - maxResponseLength: most data bytes per response, clamped to 1…65 536.
    ///   - strictLe: answer `6C XX` to case 2 commands with a too-large `Le`.
    public init(extendedLength: Bool = false, maxResponseLength: Int = 256, strictLe: Bool = false) {
        self.extendedLength = extendedLength
        self.maxResponseLength = min(max(maxResponseLength, 1), 65_536)
        self.strictLe = strictLe
    }

    private enum CodingKeys: String, CodingKey {
        case extendedLength, maxResponseLength, strictLe
    }

    /// Decodes options, rejecting a `maxResponseLength` outside 1…65 536.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let maxResponseLength = try container.decode(Int.self, forKey: .maxResponseLength)
        guard (1...65_536).contains(maxResponseLength) else {
            throw DecodingError.dataCorruptedError(
                forKey: .maxResponseLength, in: container, debugDescription: "maxResponseLength must be 1…65536")
        }
        self.init(
            extendedLength: try container.decode(Bool.self, forKey: .extendedLength),
            maxResponseLength: maxResponseLength,
            strictLe: try container.decode(Bool.self, forKey: .strictLe))
    }

    /// Encodes the options.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(extendedLength, forKey: .extendedLength)
        try container.encode(maxResponseLength, forKey: .maxResponseLength)
        try container.encode(strictLe, forKey: .strictLe)
    }
}
