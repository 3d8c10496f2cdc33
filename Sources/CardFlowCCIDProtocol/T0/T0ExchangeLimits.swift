/// Bounds on the follow-up TPDUs one T=0 exchange may take, so a card answering `61xx` or
/// `6Cxx` forever ends the exchange with a typed error (the same kinds of bounds CardFlow's
/// response chaining keeps one layer up).
public struct T0ExchangeLimits: Sendable, Hashable {
    /// GET RESPONSE commands after one command. 257: the largest answer (Ne = 65 536) in
    /// 256-byte parts takes 256, plus one for a card that gives the status word on its own.
    public var maxGetResponseRounds: Int
    /// Times one TPDU may be re-issued with the P3 a `6Cxx` asked for, in a row.
    public var maxLeCorrections: Int
    /// The most response bytes (data and status word) gathered for one command.
    public var maxResponseLength: Int

    public init(maxGetResponseRounds: Int = 257, maxLeCorrections: Int = 1, maxResponseLength: Int = 65_538) {
        self.maxGetResponseRounds = maxGetResponseRounds
        self.maxLeCorrections = maxLeCorrections
        self.maxResponseLength = maxResponseLength
    }
}
