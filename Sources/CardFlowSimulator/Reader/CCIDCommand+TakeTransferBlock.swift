import CardFlowCCIDProtocol

extension CCIDCommand {
    /// An XfrBlock's wLevelParameter and data, the data moved out (the command keeps an empty
    /// payload): its new owner holds the only reference and can change it in place without a
    /// copy. Nil, and nothing changed, for any other message.
    mutating func takeTransferBlock() -> (level: UInt16, data: [UInt8])? {
        guard case .xfrBlock(let multiplier, let level, let data) = kind else { return nil }
        kind = .xfrBlock(blockWaitingTimeMultiplier: multiplier, levelParameter: level, data: [])
        return (level, data)
    }
}
