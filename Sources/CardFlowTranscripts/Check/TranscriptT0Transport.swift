/// How a log's T=0 procedure answers line up with CardFlow's driver, which runs ISO/IEC 7816-3's
/// T=0 transport at TPDU level itself.
///
/// pcscd hands `61xx` (more data: send GET RESPONSE with Le = xx) and `6Cxx` (wrong Le: send the
/// command again with P3 = xx) back to the application, which sends the GET RESPONSE or the
/// corrected command as an APDU of its own; CardFlow's driver sends them itself and returns the
/// final answer. The CCID messages are the same; the operations are not: where the log's next
/// operations are exactly those follow-ups and their final answer (data gathered across the
/// chain, then the last status word) is what the driver returned, the log's operations are one
/// operation of the driver, and the follow-ups are not sent again.
enum TranscriptT0Transport {
    /// How many of the operations after `index` the driver's `answer` to operation `index`
    /// already covers: 0 when the recorded answer is no `61xx`/`6Cxx` the log's application
    /// followed up, or when the follow-ups do not end in `answer`.
    static func followUps(after index: Int, in operations: [TranscriptOperation], driverAnswer answer: [UInt8]) -> Int {
        guard case .transmit(var command) = operations[index].request else { return 0 }
        var current = index
        var data: [UInt8] = []
        while case .bytes(let recorded) = operations[current].recordedOutcome, recorded.count >= 2 {
            let sw1 = recorded[recorded.count - 2]
            let sw2 = recorded[recorded.count - 1]
            let next = current + 1
            guard sw1 == 0x61 || sw1 == 0x6C, next < operations.count,
                case .transmit(let followUp) = operations[next].request,
                isFollowUp(followUp, of: command, sw1: sw1, sw2: sw2)
            else {
                guard current > index, data + recorded == answer else { return 0 }
                return current - index
            }
            data += recorded.dropLast(2)
            command = followUp
            current = next
        }
        return 0
    }

    /// GET RESPONSE `CLA C0 00 00 xx` after `61 xx`; after `6C xx`, the same case 2 command
    /// (header and P3) with P3 = xx.
    static func isFollowUp(_ followUp: [UInt8], of command: [UInt8], sw1: UInt8, sw2: UInt8) -> Bool {
        guard followUp.count == 5 else { return false }
        if sw1 == 0x61 { return followUp[1] == 0xC0 && followUp[2] == 0 && followUp[3] == 0 && followUp[4] == sw2 }
        return command.count == 5 && followUp.prefix(4).elementsEqual(command.prefix(4)) && followUp[4] == sw2
    }
}
