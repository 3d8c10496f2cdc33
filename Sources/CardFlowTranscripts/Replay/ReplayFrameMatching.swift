import CardFlowCCIDProtocol

/// When a host's command counts as the command a transcript recorded.
///
/// Equal bytes, except for fields the CCID specification leaves to the host:
/// - bSeq (offset 6): the host's own counter;
/// - IccPowerOn's bPowerSelect (offset 7): the host chooses the voltage class (libccid starts
///   at the reader's highest, another host may ask for automatic selection);
/// - XfrBlock's bBWI (offset 7): the host's block waiting time extension.
///
/// Everything else must be equal: type, dwLength, bSlot, wLevelParameter and the payload (the
/// APDU, TPDU or T=1 block) byte for byte, with one encoding rule:
/// - a case 1 command in T=0 (`CLA INS P1 P2`): libccid passes the application's four bytes to a
///   TPDU reader as they are, CardFlow sends the command TPDU ISO/IEC 7816-3 (12.2.2) defines for
///   case 1, the four bytes and P3 = 00. A recorded XfrBlock of exactly four bytes therefore also
///   accepts the host's five, the same four then `00`.
enum ReplayFrameMatching {
    static func matches(_ host: [UInt8], _ recorded: RecordedFrame) -> Bool {
        let expected = recorded.bytes
        if isCaseOneTPDU(host, expected) { return true }
        guard host.count == expected.count, host.count >= ccidHeaderLength else { return false }
        return headerAndPayloadMatch(host, expected, from: 0)
    }

    /// `host` is the five-byte case 1 TPDU of the recorded four-byte XfrBlock.
    private static func isCaseOneTPDU(_ host: [UInt8], _ expected: [UInt8]) -> Bool {
        guard expected.count == ccidHeaderLength + 4, host.count == ccidHeaderLength + 5,
            expected[0] == CCIDMessageType.xfrBlock.rawValue, host[0] == expected[0],
            expected[1...4].elementsEqual([4, 0, 0, 0]), host[1...4].elementsEqual([5, 0, 0, 0]),
            host.last == 0x00
        else { return false }
        return headerAndPayloadMatch(Array(host.dropLast()), expected, from: 5)
    }

    /// Whether every byte from `start` on is equal, host-chosen fields aside.
    private static func headerAndPayloadMatch(_ host: [UInt8], _ expected: [UInt8], from start: Int) -> Bool {
        guard host.count == expected.count else { return false }
        for offset in start..<host.count where !isHostChosen(offset: offset, type: expected[0]) {
            if host[offset] != expected[offset] { return false }
        }
        return true
    }

    private static func isHostChosen(offset: Int, type: UInt8) -> Bool {
        switch offset {
        case 6: true
        case 7: type == CCIDMessageType.xfrBlock.rawValue || type == CCIDMessageType.iccPowerOn.rawValue
        default: false
        }
    }
}
