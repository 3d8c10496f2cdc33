/// Why a T=0 exchange at TPDU level failed. Each case names the instruction (INS) of the
/// command APDU and, where the card sent one, the status word it ended with.
public enum T0ProtocolError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The command is not a well-formed ISO/IEC 7816-4 APDU (fewer than 4 bytes, or length
    /// fields that disagree with its size).
    case malformedCommand(length: Int)
    /// The card answered with fewer than the two status bytes.
    case answerTooShort(instruction: UInt8, length: Int)
    /// The card kept announcing more data (`61xx`) beyond the GET RESPONSE bound.
    case getResponseRoundsExceeded(limit: Int, instruction: UInt8, statusWord: UInt16)
    /// The card kept asking for another P3 (`6Cxx`) beyond the bound.
    case leCorrectionsExceeded(limit: Int, instruction: UInt8, statusWord: UInt16)
    /// The response data grew past the bound.
    case responseTooLong(length: Int, maximum: Int, instruction: UInt8)
    /// The command data is longer than 255 bytes and the card refused ENVELOPE (INS C2), so
    /// T=0 cannot carry it.
    case envelopeRefused(instruction: UInt8, statusWord: UInt16)

    public var description: String {
        switch self {
        case .malformedCommand(let length): "a command APDU of \(length) byte(s) is not well formed"
        case .answerTooShort(let ins, let length):
            "the card answered INS 0x\(hex2(ins)) with \(length) byte(s), fewer than SW1 SW2"
        case .getResponseRoundsExceeded(let limit, let ins, let sw):
            "INS 0x\(hex2(ins)): the card still announced more data (SW \(hex4(sw))) after \(limit) GET RESPONSE commands"
        case .leCorrectionsExceeded(let limit, let ins, let sw):
            "INS 0x\(hex2(ins)): the card asked for another length again (SW \(hex4(sw))) after \(limit) correction(s)"
        case .responseTooLong(let length, let maximum, let ins):
            "INS 0x\(hex2(ins)): response of \(length) bytes exceeds the limit of \(maximum)"
        case .envelopeRefused(let ins, let sw):
            "INS 0x\(hex2(ins)): the card refused ENVELOPE (SW \(hex4(sw))) for command data over 255 bytes"
        }
    }
}
