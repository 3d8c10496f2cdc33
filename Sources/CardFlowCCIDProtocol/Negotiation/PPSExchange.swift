/// A protocol and parameters selection request (ISO/IEC 7816-3 §9): `PPSS PPS0 [PPS1] PCK`,
/// with PPSS = FF, PPS0 = presence of PPS1 in bit 5 and the protocol in bits 4–1, PPS1 = the
/// proposed Fi/Di, and PCK making the XOR of all bytes zero.
///
/// At TPDU level the host sends it in one `PC_to_RDR_XfrBlock` and the reader returns the
/// card's answer in one DataBlock (what the pcsc-lite CCID driver's PPS_Exchange does).
public struct PPSRequest: Sendable, Hashable {
    /// The protocol asked for (PPS0 bits 4–1).
    public let transmissionProtocol: TransmissionProtocol
    /// The factors proposed in PPS1; nil leaves PPS1 out (the card keeps Fd/Dd).
    public let factors: TransmissionFactors?

    public init(protocol transmissionProtocol: TransmissionProtocol, factors: TransmissionFactors?) {
        self.transmissionProtocol = transmissionProtocol
        self.factors = factors
    }

    /// The request bytes.
    public var bytes: [UInt8] {
        var request: [UInt8] = [0xFF, transmissionProtocol.rawValue | (factors == nil ? 0 : 0x10)]
        if let factors { request.append(factors.rawValue) }
        request.append(request.reduce(0, ^))
        return request
    }

    /// Judges the card's answer (ISO/IEC 7816-3 §9.3): a successful exchange echoes PPSS and
    /// the protocol, either echoes PPS1 (the proposed factors apply) or leaves it out (Fd/Dd
    /// apply), carries no byte the request did not have, and has a correct PCK.
    public func outcome(of answer: [UInt8]) -> PPSOutcome {
        guard answer.count >= 3 else { return .failed("answer of \(answer.count) byte(s) is shorter than a PPS") }
        guard answer[0] == 0xFF else { return .failed("PPSS is 0x\(hex2(answer[0])), not FF") }
        let pps0 = answer[1]
        guard pps0 & 0x0F == transmissionProtocol.rawValue else {
            return .failed("the card answered protocol T=\(pps0 & 0x0F) to a request for \(transmissionProtocol)")
        }
        // Only PPS1 was proposed; PPS2 and PPS3 in the answer would be bytes the request lacked.
        guard pps0 & 0x60 == 0 else { return .failed("the answer carries PPS2 or PPS3, which were not proposed") }
        let hasPPS1 = pps0 & 0x10 != 0
        guard answer.count == (hasPPS1 ? 4 : 3) else {
            return .failed("answer length \(answer.count) does not match its PPS0 0x\(hex2(pps0))")
        }
        guard answer.reduce(0, ^) == 0 else { return .failed("PCK is wrong") }
        guard hasPPS1 else { return .accepted(.default) }
        guard let factors, answer[2] == factors.rawValue else {
            return .failed(
                "PPS1 0x\(hex2(answer[2])) differs from the proposed \(factors.map { "0x" + hex2($0.rawValue) } ?? "none")"
            )
        }
        return .accepted(factors)
    }
}

/// How a PPS exchange ended.
public enum PPSOutcome: Sendable, Hashable {
    /// The card took the protocol and runs at these factors from now on.
    case accepted(TransmissionFactors)
    /// The exchange failed; the card must be reset (ISO/IEC 7816-3 §9.3).
    case failed(String)
}
