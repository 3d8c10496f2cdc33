import CardFlow

/// An ISO-wrapped native command, `90 INS 00 00 Lc data 00` (Le `00`: up to 256 bytes back).
func nativeCommandAPDU(_ instruction: EV2Instruction, _ data: [UInt8]) throws(EV2Error) -> CommandAPDU {
    do {
        return try CommandAPDU(cla: 0x90, ins: instruction.rawValue, p1: 0, p2: 0, data: data, le: 256)
    } catch {
        throw .invalidArgument("\(instruction): a data field of \(data.count) bytes does not fit an APDU")
    }
}
