/// Bounds on the follow-up commands ``CardChannel/send(_:policy:)`` issues on its own.
///
/// A faulty or hostile card can answer `61xx` or `6Cxx` forever; these limits make sure every
/// exchange ends, with ``APDUExchangeError`` when a limit is hit. Negative values count as 0.
public struct ResponseChainingPolicy: Hashable, Sendable {
    /// How many GET RESPONSE commands may follow one command (each answers one `61xx`).
    public var maxGetResponseRounds: Int
    /// How many times a command may be re-sent with the Le a `6Cxx` asked for.
    public var maxLeCorrections: Int
    /// The most response data bytes gathered across all rounds.
    public var maxResponseDataLength: Int

    /// 32 GET RESPONSE rounds, 1 Le correction, 65536 data bytes (the largest Ne ISO/IEC 7816-4
    /// lets a single command ask for).
    public static let `default` = ResponseChainingPolicy()

    public init(maxGetResponseRounds: Int = 32, maxLeCorrections: Int = 1, maxResponseDataLength: Int = 65_536) {
        self.maxGetResponseRounds = maxGetResponseRounds
        self.maxLeCorrections = maxLeCorrections
        self.maxResponseDataLength = maxResponseDataLength
    }
}
