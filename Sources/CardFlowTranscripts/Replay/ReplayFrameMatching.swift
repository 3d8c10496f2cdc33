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
/// APDU, TPDU or T=1 block) byte for byte.
enum ReplayFrameMatching {
    static func matches(_ host: [UInt8], _ recorded: RecordedFrame) -> Bool {
        let expected = recorded.bytes
        guard host.count == expected.count, host.count >= ccidHeaderLength else { return false }
        for offset in host.indices where !isHostChosen(offset: offset, type: expected[0]) {
            if host[offset] != expected[offset] { return false }
        }
        return true
    }

    private static func isHostChosen(offset: Int, type: UInt8) -> Bool {
        switch offset {
        case 6: true
        case 7: type == CCIDMessageType.iccPowerOn.rawValue || type == CCIDMessageType.xfrBlock.rawValue
        default: false
        }
    }
}
