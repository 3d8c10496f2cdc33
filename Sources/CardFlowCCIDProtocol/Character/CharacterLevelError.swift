/// Why a character-level exchange (CCID dwFeatures exchange level 0: the host drives the card's
/// I/O line byte by byte with `PC_to_RDR_XfrBlock`) failed.
public enum CharacterLevelError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The reader returned a different number of bytes than wLevelParameter asked for.
    case answerLength(expected: Int, received: Int)
    /// A T=0 procedure byte that is none of NULL (60), ACK (INS), INS ⊕ FF, or SW1 (6x, 9x), or an
    /// ACK when no data is left to transfer.
    case unexpectedProcedureByte(UInt8, instruction: UInt8)
    /// The instruction byte 6x or 9x cannot travel over T=0: its ACK would read as NULL or SW1.
    case invalidInstruction(UInt8)
    /// CLA FF cannot be sent over T=0 at character level: the card takes FF as the start of a
    /// PPS request (ISO/IEC 7816-3 §10.3.2 makes it invalid).
    case invalidClass(UInt8)
    /// The TPDU is not a 5-byte header followed by nothing or exactly P3 data bytes.
    case malformedTPDU(length: Int)
    /// The ATR the reader and card gave is not complete after reading its missing bytes, or is
    /// longer than 33 bytes.
    case incompleteATR([UInt8])

    public var description: String {
        switch self {
        case .answerLength(let expected, let received):
            "the reader returned \(received) byte(s) where \(expected) were asked for (wLevelParameter)"
        case .unexpectedProcedureByte(let byte, let ins):
            "the card sent 0x\(hex2(byte)), not a valid T=0 procedure byte for INS 0x\(hex2(ins))"
        case .invalidInstruction(let ins): "INS 0x\(hex2(ins)) cannot be sent over T=0 (6x and 9x are reserved)"
        case .invalidClass(let cla): "CLA 0x\(hex2(cla)) cannot be sent over T=0 (it starts a PPS request)"
        case .malformedTPDU(let length): "a T=0 TPDU of \(length) byte(s) is not a header with P3 data bytes"
        case .incompleteATR(let atr): "incomplete ATR \(atr.map(hex2).joined(separator: " "))"
        }
    }
}
