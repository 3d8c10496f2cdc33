import CardFlowCCIDProtocol

/// What a TPDU-level reader and a contact card in one slot have agreed since the last reset:
/// which protocol and speed the card runs (its default protocol at Fd/Dd, TA1 in specific mode,
/// or what a PPS changed) and what the reader was set to with SetParameters. When the two
/// disagree the card's answers are garbage to the reader, which reports a mute card: a host
/// that skips the PPS, or sets a speed the card did not accept, sees its exchanges fail.
struct ContactLink: Sendable {
    /// The card's contact options.
    let interface: ContactInterface
    /// True when the reader negotiates protocol and speed itself (dwFeatures 0x40): the host
    /// sends neither PPS nor SetParameters, and the two sides always agree.
    let readerNegotiates: Bool

    /// A PPS request is allowed: nothing else has been exchanged since the ATR.
    var ppsAllowed = true
    /// The card no longer answers (a failed PPS) until the next reset.
    var cardMute = false
    /// The protocol the card runs.
    var cardProtocol: UInt8
    /// The Fi/Di the card runs at.
    var cardFactors: UInt8
    /// The protocol SetParameters set on the reader (nil: not set, the reader follows the card).
    var readerProtocol: UInt8?
    /// The Fi/Di the reader runs at (the default until SetParameters).
    var readerFactors: UInt8 = 0x11
    /// The T=1 EDC SetParameters named (bmTCCKST1 bit 0: CRC), which a TPDU reader uses to know
    /// where a card's block ends; nil: not set, the reader follows the card.
    var readerT1ErrorDetection: ContactInterface.ErrorDetection?

    /// - Parameter readerProtocols: the protocols the reader runs (dwProtocols): one that
    ///   negotiates never picks a protocol it does not have.
    init(interface: ContactInterface, readerNegotiates: Bool, readerProtocols: CCIDProtocols = [.t0, .t1]) {
        self.interface = interface
        self.readerNegotiates = readerNegotiates
        if readerNegotiates, !interface.specificMode {
            // Such a reader picks T=1 when the card and the reader both have it, at the card's
            // speed; a T=0-only reader picks T=0 from a dual-protocol card.
            if interface.protocols.contains(1), readerProtocols.contains(.t1) {
                cardProtocol = 1
            } else if interface.protocols.contains(0), readerProtocols.contains(.t0) {
                cardProtocol = 0
            } else {
                cardProtocol = interface.defaultProtocol
            }
        } else {
            cardProtocol = interface.defaultProtocol
        }
        // In specific mode the card runs at TA1 from the start, otherwise at Fd/Dd.
        cardFactors = interface.specificMode ? (interface.ta1 ?? 0x11) : 0x11
        if readerNegotiates { readerFactors = cardFactors }
    }

    /// True when reader and card run the same protocol at the same speed.
    var inStep: Bool {
        if readerNegotiates { return true }
        return (readerProtocol ?? cardProtocol) == cardProtocol && readerFactors == cardFactors
    }

    /// A T=1 block from the card as a TPDU reader hands it over: the reader reads NAD PCB LEN,
    /// then LEN bytes and the EDC length bmTCCKST1 named. Told LRC while the card sends CRC, it
    /// stops one byte short; told CRC for an LRC card, it waits for a byte that never comes (nil:
    /// the reader reports a mute card).
    func blockAsReaderFramesIt(_ block: [UInt8]) -> [UInt8]? {
        guard !readerNegotiates, let expected = readerT1ErrorDetection, expected != interface.errorDetection else {
            return block
        }
        return expected == .lrc ? Array(block.dropLast()) : nil
    }

    /// Whether the card accepts running `protocolNumber` at `factors` (ISO/IEC 7816-3 §9.1:
    /// F from Fd up to Fi and D from Dd up to Di of TA1; here the same F with a D not above Di).
    func accepts(protocol protocolNumber: UInt8, factors: UInt8) -> Bool {
        guard !interface.specificMode, interface.protocols.contains(protocolNumber) else { return false }
        if factors == 0x11 { return true }
        guard let ta1 = interface.ta1, factors >> 4 == ta1 >> 4 else { return false }
        let order: [UInt8] = [1, 2, 3, 4, 5, 6, 7] // D = 1, 2, 4, 8, 16, 32, 64
        guard let asked = order.firstIndex(of: factors & 0x0F), let most = order.firstIndex(of: ta1 & 0x0F) else {
            return factors == ta1
        }
        return asked <= most
    }

    /// Whether `bytes` have the shape of a PPS request: PPSS FF, PPS0, the optional bytes PPS0
    /// announces, and a PCK making the XOR zero. Anything else right after the ATR (a TPDU with
    /// the invalid class FF, say) is taken as a command.
    static func isPPSRequest(_ bytes: ArraySlice<UInt8>) -> Bool {
        guard bytes.count >= 3, bytes.first == 0xFF else { return false }
        let pps0 = bytes[bytes.startIndex + 1]
        let optional = [0x10, 0x20, 0x40].filter { pps0 & $0 != 0 }.count
        return bytes.count == 3 + optional && bytes.reduce(0, ^) == 0
    }

    /// The card's answer to a PPS request, updating what it runs; nil when it stays mute.
    mutating func answerPPS(_ request: [UInt8]) -> [UInt8]? {
        ppsAllowed = false
        // PPSS FF, PPS0, optional PPS1..PPS3, PCK; the XOR of all bytes is zero.
        guard request.count >= 3, request.count <= 6, request[0] == 0xFF, request.reduce(0, ^) == 0 else {
            cardMute = true
            return nil
        }
        let pps0 = request[1]
        let optional = [0x10, 0x20, 0x40].filter { pps0 & $0 != 0 }.count
        guard request.count == 3 + optional else {
            cardMute = true
            return nil
        }
        let protocolNumber = pps0 & 0x0F
        let pps1: UInt8? = pps0 & 0x10 != 0 ? request[2] : nil
        guard accepts(protocol: protocolNumber, factors: pps1 ?? 0x11) else {
            cardMute = true
            return nil
        }
        switch interface.ppsBehaviour {
        case .accept:
            cardProtocol = protocolNumber
            cardFactors = pps1 ?? 0x11
            // Only PPS1 is supported: PPS2/PPS3 are left out of the answer.
            return pps1.map { [0xFF, 0x10 | protocolNumber, $0, 0xFF ^ 0x10 ^ protocolNumber ^ $0] }
                ?? [0xFF, protocolNumber, 0xFF ^ protocolNumber]
        case .defaultSpeedOnly:
            cardProtocol = protocolNumber
            cardFactors = 0x11
            return [0xFF, protocolNumber, 0xFF ^ protocolNumber]
        case .mute:
            cardMute = true
            return nil
        case .mismatch:
            cardMute = true
            let other: UInt8 = pps1 == 0x13 ? 0x12 : 0x13
            return [0xFF, 0x10 | protocolNumber, other, 0xFF ^ 0x10 ^ protocolNumber ^ other]
        }
    }
}
