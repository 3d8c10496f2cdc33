/// Why no protocol or speed could be agreed between a card and a reader.
public enum ProtocolSelectionError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The requested protocol is not offered by the card (its ATR) or the reader (dwProtocols).
    case protocolNotOffered(TransmissionProtocol, card: [TransmissionProtocol], reader: [TransmissionProtocol])
    /// Card and reader have no protocol in common.
    case noCommonProtocol(card: [TransmissionProtocol], reader: [TransmissionProtocol])
    /// The card is in specific mode (TA2) for a protocol the reader cannot run.
    case specificModeProtocolUnsupported(protocolNumber: UInt8)
    /// The card is in specific mode at a speed (TA1) the reader cannot do.
    case specificModeSpeedUnsupported(TransmissionFactors, bitsPerSecond: Int?)
    /// The card is in specific mode with implicit parameters (TA2 bit 5), which no CCID host can
    /// know.
    case implicitParameters(ta2: UInt8)

    public var description: String {
        func names(_ protocols: [TransmissionProtocol]) -> String {
            protocols.isEmpty ? "none" : protocols.map(\.description).joined(separator: ", ")
        }
        switch self {
        case .protocolNotOffered(let requested, let card, let reader):
            return "\(requested) was requested; the card offers \(names(card)) and the reader \(names(reader))"
        case .noCommonProtocol(let card, let reader):
            return "the card offers \(names(card)) and the reader \(names(reader)): no protocol in common"
        case .specificModeProtocolUnsupported(let number):
            return "the card is in specific mode for T=\(number), which the reader does not support"
        case .specificModeSpeedUnsupported(let factors, let rate):
            return
                "the card is in specific mode at TA1 \(factors)\(rate.map { " (\($0) bps)" } ?? ""), which the reader cannot do"
        case .implicitParameters(let ta2):
            return "the card is in specific mode with implicit parameters (TA2 0x\(hex2(ta2)))"
        }
    }
}
