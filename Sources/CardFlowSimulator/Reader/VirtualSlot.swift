import CardFlowCCIDProtocol
import CardFlowSimulatorCards

/// One slot of a simulated reader: the card in it and the reader's per-card protocol state.
struct VirtualSlot: Sendable {
    var card: (any VirtualCard)?
    var powered = false
    /// Card side of T=1 for TPDU readers (set up at the first exchange after power-on).
    var t1: T1CardEndpoint?
    /// Card side of T=0 for TPDU readers and contact cards that run it.
    var t0: T0CardEndpoint?
    /// Character-level readers: the card's I/O line since the last reset.
    var characterLine: CharacterLine?
    /// TPDU and character-level readers with a contact card: the protocol and speed state since the last reset.
    var contactLink: ContactLink?
    /// TPDU readers with a contactless card: a PPS request may still come (nothing else has
    /// been exchanged since power-on).
    var ppsAllowed = false
    /// TPDU readers: the answer held back while the card's S(WTX) request is outstanding.
    var pendingT1Response: [UInt8]?
    /// TPDU readers: while set, the card answers every granted S(WTX) with another request
    /// (multiplier, pause before each).
    var waitingTimeExtensionStorm: (multiplier: UInt8, interval: Duration)?
    /// Command parts received so far with wLevelParameter chaining.
    var commandChain: [UInt8]?
    /// Response bytes still to be fetched with wLevelParameter 0x0010.
    var pendingResponse: [UInt8] = []
    var parameters: CCIDProtocolParameters = .defaultT1
    /// Other cards in the field at the same time (anticollision cannot single one out).
    var extraCardsInField = 0
    /// The reader's own firmware answering some APDUs itself (the ACR122U's PN532), if any.
    var firmware: (any SimulatedReaderFirmware)?

    var iccStatus: CCIDSlotState.ICCStatus {
        guard card != nil else { return .absent }
        return powered ? .presentActive : .presentInactive
    }

    mutating func cardLeft() {
        firmware?.fieldChanged()
        card = nil
        powered = false
        t1 = nil
        t0 = nil
        contactLink = nil
        characterLine = nil
        ppsAllowed = false
        pendingT1Response = nil
        waitingTimeExtensionStorm = nil
        commandChain = nil
        pendingResponse = []
    }
}
