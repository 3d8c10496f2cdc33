import CCID

/// One slot of a simulated reader: the card in it and the reader's per-card protocol state.
struct VirtualSlot: Sendable {
    var card: (any VirtualCard)?
    var powered = false
    /// Card side of T=1 for TPDU readers (set at power-on).
    var t1: T1CardEndpoint?
    /// Command parts received so far with wLevelParameter chaining.
    var commandChain: [UInt8]?
    /// Response bytes still to be fetched with wLevelParameter 0x0010.
    var pendingResponse: [UInt8] = []
    var parameters: CCIDProtocolParameters = .defaultT1

    var iccStatus: CCIDSlotState.ICCStatus {
        guard card != nil else { return .absent }
        return powered ? .presentActive : .presentInactive
    }

    mutating func cardLeft() {
        card = nil
        powered = false
        t1 = nil
        commandChain = nil
        pendingResponse = []
    }
}
