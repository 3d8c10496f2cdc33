import CardFlowCCIDProtocol

/// Seeded misbehaviour: before each command, with probability ``rate``, the simulated reader
/// picks a ``ReaderFault`` from its seed and shows it. The same seed gives the same faults for
/// the same commands, so a failure found by a campaign replays exactly.
///
/// Used by tests and by the `reader-chaos=SEED[,chaos-rate=P]` option of `--reader sim:…`.
///
/// ```swift
/// var configuration = VirtualReaderConfiguration.level(.shortAPDU)
/// configuration.chaos = ReaderChaos(seed: 42, rate: 0.1)
/// ```
public struct ReaderChaos: Sendable, Hashable {
    /// Seed of the fault choices (independent of the reader's own seed).
    public var seed: UInt64
    /// Probability in 0...1 that a command meets a fault.
    public var rate: Double
    /// Pause between the frames of a time-extension or S(WTX) storm.
    public var stormInterval: Duration
    /// Whether the reader may be unplugged (which ends every later exchange); off by default.
    public var allowsUnplug: Bool

    public init(seed: UInt64, rate: Double = 0.05, stormInterval: Duration = .seconds(2), allowsUnplug: Bool = false) {
        self.seed = seed
        self.rate = min(max(rate, 0), 1)
        self.stormInterval = stormInterval
        self.allowsUnplug = allowsUnplug
    }

    /// Picks one fault that can show on a reader of `level` (T=1 faults only on TPDU and
    /// character-level readers, I/O line slips only on character-level ones, so that nothing
    /// waits in vain for a command it could apply to).
    func pickFault(for level: CCIDExchangeLevel, using random: inout SeededRandom) -> ReaderFault {
        let multiplier = UInt8(truncatingIfNeeded: random.next())
        var menu: [ReaderFault] = [
            .timeExtensions(count: Int(random.next() % 80) + 1, multiplier: multiplier),
            .timeExtensionStorm(interval: stormInterval, multiplier: multiplier),
            .iccMute, .hardwareError, .stall, .shortResponse, .garbledResponse, .staleFrame,
            .wrongSequence, .randomSequence, .duplicateResponse, .oversizedResponse,
            .lengthFieldMismatch(
                declared: [0, 0xFFFF_FFFF, UInt32(truncatingIfNeeded: random.next())][Int(random.next() % 3)]),
            .emptyTransfer, .noResponse, .unknownInterruptMessage, .shortInterruptMessage,
        ]
        if level == .tpdu {
            menu += [
                .cardWaitingTimeExtension(multiplier: multiplier), .corruptT1Block,
                .waitingTimeExtensionStorm(interval: stormInterval, multiplier: multiplier),
            ]
        }
        if level == .character {
            menu.append(.corruptT1Block)
            menu += (CharacterLineFault.t0Faults(using: &random) + CharacterLineFault.t1Faults(using: &random)).map(
                ReaderFault.characterLine)
        }
        if allowsUnplug { menu.append(.unplug) }
        return menu[Int(random.next() % UInt64(menu.count))]
    }
}
