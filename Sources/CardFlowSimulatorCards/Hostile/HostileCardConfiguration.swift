/// How a ``HostileCard`` misbehaves.
public struct HostileCardConfiguration: Sendable, Hashable {
    /// Every random choice of the card derives from it: one seed, one exact sequence of answers.
    public var seed: UInt64
    /// With a wrapped card: the share of answers (0...100 %) that are hostile. Without one,
    /// every answer is.
    public var hostilePercent: Int
    /// The chance (0...100 %) that a power-on starts a sticky mode.
    public var stickyPercent: Int
    /// The longest data field of an oversized answer (1...65536 bytes).
    public var maxResponseLength: Int
    /// The kinds of hostile answer to draw from.
    public var answers: Set<HostileAnswer>
    /// The sticky modes to draw from.
    public var stickyModes: Set<HostileStickyMode>

    /// - Parameters:
    ///   - seed: where every answer is drawn from.
    ///   - hostilePercent: clamped to 0...100.
    ///   - stickyPercent: clamped to 0...100.
    ///   - maxResponseLength: clamped to 1...65536.
    ///   - answers: the kinds of hostile answer to draw from.
    ///   - stickyModes: the sticky modes to draw from.
    public init(
        seed: UInt64, hostilePercent: Int = 10, stickyPercent: Int = 5, maxResponseLength: Int = 1024,
        answers: Set<HostileAnswer> = Set(HostileAnswer.allCases),
        stickyModes: Set<HostileStickyMode> = Set(HostileStickyMode.allCases)
    ) {
        self.seed = seed
        self.hostilePercent = min(max(hostilePercent, 0), 100)
        self.stickyPercent = min(max(stickyPercent, 0), 100)
        self.maxResponseLength = min(max(maxResponseLength, 1), 65_536)
        self.answers = answers
        self.stickyModes = stickyModes
    }
}
