/// The protocol, speed and parameters a host sets up with a contact card after its ATR, as
/// ISO/IEC 7816-3 and the pcsc-lite CCID driver (`IFDHSetProtocolParameters`) do it:
///
/// - Protocol: in specific mode (TA2 present) the one TA2 names; otherwise the preferred one,
///   or with ``ProtocolPreference/automatic`` T=1 when card and reader both offer it, else T=0.
/// - Speed: the card's TA1 when the reader can do that bit rate (at dwDefaultClock, within
///   dwMaxDataRate and, when the reader lists its data rates, one of them ±2 bps), else the
///   fastest slower D with the same F that it can do, else the default `11`.
/// - PPS: only at TPDU or character level, in negotiable mode, when the reader does neither the parameter
///   negotiation (dwFeatures 0x40) nor the PPS (0x80) itself, and only when the protocol is not
///   the card's default one or the speed is not the default.
/// - SetParameters: unless the reader negotiates parameters itself (0x40), with the T=0 or
///   T=1 structure of CCID §6.1.7 filled from TA1, TC1, TC2, TB3, TC3 and TA3.
///
/// After a failed PPS the card must be reset; ``fallback`` says what to try then.
public struct ProtocolSelection: Sendable, Hashable {
    /// The protocol to run.
    public let transmissionProtocol: TransmissionProtocol
    /// The factors the card and the reader will use (proposed in the PPS when there is one).
    public let factors: TransmissionFactors
    /// True when the card is in specific mode (TA2): no PPS is possible.
    public let isSpecificMode: Bool
    /// The PPS request the host sends, nil when none is needed or allowed.
    public let ppsRequest: PPSRequest?
    /// The card's default protocol (TD1), what it runs without a PPS.
    public let defaultProtocol: TransmissionProtocol

    private let preference: ProtocolPreference
    private let readerProtocols: [TransmissionProtocol]
    private let canSendPPS: Bool
    private let sendsSetParameters: Bool
    private let atr: AnswerToReset
    private let readerCanStopClock: Bool

    /// Chooses protocol and speed for `atr` on a reader with `descriptor`.
    ///
    /// - Parameters:
    ///   - atr: the card's answer to reset.
    ///   - descriptor: the reader's CCID class descriptor.
    ///   - supportedDataRates: the reader's GET_DATA_RATES answer, nil when it has no
    ///     table (bNumDataRatesSupported 0) or did not answer.
    ///   - preference: the protocol asked for.
    ///   - hostMaySendPPS: false for a reader that does not pass a PPS request on
    ///     (``CCIDQuirks/noPPS``): at TPDU and character level the card then keeps its default
    ///     protocol and speed.
    public init(
        atr: AnswerToReset, descriptor: CCIDClassDescriptor, supportedDataRates: [UInt32]? = nil,
        preference: ProtocolPreference = .automatic, hostMaySendPPS: Bool = true
    ) throws(ProtocolSelectionError) {
        // A reader announcing no protocol at all is taken at its word for neither; the corpus
        // has none at contact levels, so treat it as offering both rather than refusing.
        var readerProtocols: [TransmissionProtocol] = []
        if descriptor.protocols.contains(.t0) { readerProtocols.append(.t0) }
        if descriptor.protocols.contains(.t1) { readerProtocols.append(.t1) }
        if readerProtocols.isEmpty { readerProtocols = [.t0, .t1] }
        let card = atr.offeredProtocols
        let features = descriptor.features
        // At APDU level the reader owns the I/O line; at TPDU and character level the host does.
        let hostLevel = descriptor.exchangeLevel == .tpdu || descriptor.exchangeLevel == .character

        let chosen: TransmissionProtocol
        var factors = TransmissionFactors.default
        let specific = atr.specificMode
        if let specific {
            guard let fixed = TransmissionProtocol(rawValue: specific.protocol), readerProtocols.contains(fixed) else {
                throw .specificModeProtocolUnsupported(protocolNumber: specific.protocol)
            }
            if let required = preference.required, required != fixed {
                throw .protocolNotOffered(required, card: [fixed], reader: readerProtocols)
            }
            guard !specific.implicitParameters else { throw .implicitParameters(ta2: atr.ta2 ?? 0) }
            chosen = fixed
            factors = atr.maximumFactors
            if factors != .default, !Self.readerSupports(factors, descriptor: descriptor, dataRates: supportedDataRates)
            {
                throw .specificModeSpeedUnsupported(
                    factors, bitsPerSecond: factors.baudRate(clockKHz: descriptor.defaultClock))
            }
        } else {
            // Without a PPS the card runs its default protocol: nothing else can be chosen.
            let reachable = hostLevel && !hostMaySendPPS ? [atr.defaultProtocol] : card
            let common = reachable.filter(readerProtocols.contains)
            if let required = preference.required {
                guard common.contains(required) else {
                    throw .protocolNotOffered(required, card: card, reader: readerProtocols)
                }
                chosen = required
            } else if common.contains(.t1) {
                chosen = .t1
            } else if let first = common.first {
                chosen = first
            } else {
                throw .noCommonProtocol(card: card, reader: readerProtocols)
            }
            factors = Self.fastestFactors(
                for: atr.maximumFactors, descriptor: descriptor, dataRates: supportedDataRates)
        }

        let readerNegotiates = features.contains(.automaticParameterNegotiation)
        let canSendPPS = hostLevel && !readerNegotiates && !features.contains(.automaticPPS) && hostMaySendPPS
        // Without a PPS a card in negotiable mode stays at Fd/Dd: only a reader that makes
        // the PPS itself (0x80) or negotiates everything (0x40) may be given faster factors.
        if specific == nil, !canSendPPS, !readerNegotiates, !features.contains(.automaticPPS) { factors = .default }
        let needsPPS = specific == nil && canSendPPS && (chosen != atr.defaultProtocol || factors != .default)

        self.transmissionProtocol = chosen
        self.factors = factors
        self.isSpecificMode = specific != nil
        self.ppsRequest = needsPPS ? PPSRequest(protocol: chosen, factors: factors == .default ? nil : factors) : nil
        self.defaultProtocol = atr.defaultProtocol
        self.preference = preference
        self.readerProtocols = readerProtocols
        self.canSendPPS = canSendPPS
        self.sendsSetParameters = !readerNegotiates
        self.atr = atr
        self.readerCanStopClock = features.contains(.canStopClock)
    }

    private init(_ base: ProtocolSelection, protocol transmissionProtocol: TransmissionProtocol) {
        self.transmissionProtocol = transmissionProtocol
        self.factors = .default
        self.isSpecificMode = base.isSpecificMode
        self.ppsRequest =
            base.canSendPPS && transmissionProtocol != base.defaultProtocol
            ? PPSRequest(protocol: transmissionProtocol, factors: nil) : nil
        self.defaultProtocol = base.defaultProtocol
        self.preference = base.preference
        self.readerProtocols = base.readerProtocols
        self.canSendPPS = base.canSendPPS
        self.sendsSetParameters = base.sendsSetParameters
        self.atr = base.atr
        self.readerCanStopClock = base.readerCanStopClock
    }

    /// What to set up after this selection's PPS failed and the card was reset: the same
    /// protocol at the default speed (PPS without PPS1 when it is not the default protocol),
    /// then, with ``ProtocolPreference/automatic``, the card's default protocol without PPS.
    /// Nil when nothing is left to try.
    public var fallback: ProtocolSelection? {
        guard let ppsRequest else { return nil }
        if ppsRequest.factors != nil { return ProtocolSelection(self, protocol: transmissionProtocol) }
        guard preference == .automatic, transmissionProtocol != defaultProtocol,
            readerProtocols.contains(defaultProtocol)
        else { return nil }
        return ProtocolSelection(self, protocol: defaultProtocol)
    }

    /// The SetParameters structure for this selection at `factors` (those a PPS left in force),
    /// nil when the reader negotiates parameters itself (dwFeatures 0x40).
    public func parameters(at factors: TransmissionFactors? = nil) -> CCIDProtocolParameters? {
        guard sendsSetParameters else { return nil }
        let findexDindex = (factors ?? self.factors).rawValue
        // bmTCCKST: bit 1 inverse convention (the reader should ignore it), bit 0 CRC for T=1.
        let convention: UInt8 = atr.usesInverseConvention ? 0x02 : 0x00
        let clockStop = readerCanStopClock ? atr.clockStop : 0
        switch transmissionProtocol {
        case .t0:
            return .t0(
                findexDindex: findexDindex, tcckst: convention, guardTime: atr.tc1 ?? 0,
                waitingInteger: atr.tc2 ?? 0x0A, clockStop: clockStop)
        case .t1:
            return .t1(
                findexDindex: findexDindex, tcckst: 0x10 | convention | (atr.t1UsesCRC ? 0x01 : 0x00),
                guardTime: atr.tc1 ?? 0, waitingIntegers: atr.t1WaitingIntegers ?? 0x4D, clockStop: clockStop,
                ifsc: UInt8(atr.t1IFSC), nad: 0)
        }
    }

    /// The fastest factors not above `card` that the reader can do and that beat the default
    /// speed; the default factors when there are none.
    public static func fastestFactors(
        for card: TransmissionFactors, descriptor: CCIDClassDescriptor,
        dataRates: [UInt32]?
    ) -> TransmissionFactors {
        guard let defaultRate = TransmissionFactors.default.baudRate(clockKHz: descriptor.defaultClock) else {
            return .default
        }
        for candidate in [card] + card.slowerAlternatives {
            guard let rate = candidate.baudRate(clockKHz: descriptor.defaultClock) else { continue }
            // A card may announce a slower TA1 than the default; there is nothing to gain.
            guard rate > defaultRate else { break }
            if readerSupports(candidate, descriptor: descriptor, dataRates: dataRates) { return candidate }
        }
        return .default
    }

    /// Whether the reader can run the card at `factors`: the bit rate at dwDefaultClock is
    /// within dwMaxDataRate and, when the reader lists its rates, one of them (±2 bps, as the
    /// rates are rounded). Both limits hold: many readers list rates above their own
    /// dwMaxDataRate (18 of the fixtures' dumps: an OMNIKEY 3x21 lists 600 000 bps under a maximum
    /// of 412 903), and pcsc-lite's driver refuses a rate above dwMaxDataRate before it looks at
    /// the list ("Reader can't do more than … bauds").
    public static func readerSupports(
        _ factors: TransmissionFactors, descriptor: CCIDClassDescriptor,
        dataRates: [UInt32]?
    ) -> Bool {
        guard let rate = factors.baudRate(clockKHz: descriptor.defaultClock),
            rate <= Int(descriptor.maxDataRate) + 2
        else { return false }
        if let dataRates, !dataRates.isEmpty {
            return dataRates.contains { abs(Int($0) - rate) < 2 }
        }
        return true
    }
}
