import CardFlowCCIDProtocol

/// What the replay reader answers for a host command the recording does not have where the
/// host sends it, when the recording still says what the answer must be.
///
/// A host may ask the reader things pcscd did not ask at that moment (CardFlow polls the slot at
/// other times), and a segment that starts after the power-on lacks the commands that set the
/// card up. For these commands the answer follows from the recording's state, not from the
/// host's wish; every other command must match the recording.
public enum ReplayStandIn: String, Sendable, Hashable, CaseIterable {
    /// GetSlotStatus: the slot state the recording last showed, else "present, active" once the
    /// host powered the card and "present, inactive" before.
    case slotStatus
    /// IccPowerOn where the segment has none: a DataBlock with the ATR of the log or header.
    case powerOn
    /// IccPowerOff where the segment has none: "present, inactive".
    case powerOff
    /// SetParameters where the segment has none: the parameters echoed (a reader that takes them).
    case setParameters
    /// A PPS request (TPDU or character level) where the segment has none: echoed, i.e. granted,
    /// as ISO/IEC 7816-3 lets a card confirm a request by repeating it.
    case protocolAndParameterSelection
    /// A T=1 S(IFS request) where the segment has none: the card's S(IFS response) with the same
    /// size, as ISO/IEC 7816-3 requires.
    case informationFieldSize

    /// The stand-in for `command`, when one applies.
    static func rule(for command: [UInt8]) -> ReplayStandIn? {
        guard command.count >= ccidHeaderLength, let type = CCIDMessageType(rawValue: command[0]) else { return nil }
        switch type {
        case .getSlotStatus: return .slotStatus
        case .iccPowerOn: return .powerOn
        case .iccPowerOff: return .powerOff
        case .setParameters: return .setParameters
        case .xfrBlock:
            let payload = command[ccidHeaderLength...]
            if payload.first == 0xFF, payload.count >= 3, payload.count <= 6 { return .protocolAndParameterSelection }
            // NAD, PCB = S(IFS request), LEN 1, INF, LRC
            if payload.count == 5, payload[payload.startIndex + 1] == 0xC1, payload[payload.startIndex + 2] == 1 {
                return .informationFieldSize
            }
            return nil
        default: return nil
        }
    }

    /// The answer under this rule, or nil when the recording cannot supply one (no ATR).
    func answer(
        to command: [UInt8], answerToReset: [UInt8]?, lastSlotState: CCIDSlotState?, cardPowered: Bool
    ) -> [UInt8]? {
        let slot = command[5]
        let sequence = command[6]
        let payload = Array(command[ccidHeaderLength...])
        let response: CCIDResponse
        switch self {
        case .slotStatus:
            let state =
                lastSlotState
                ?? CCIDSlotState(icc: cardPowered ? .presentActive : .presentInactive, command: .processed)
            response = CCIDResponse(slot: slot, sequence: sequence, state: state, kind: .slotStatus(clockStatus: 0))
        case .powerOn:
            guard let answerToReset else { return nil }
            response = CCIDResponse(
                slot: slot, sequence: sequence, state: CCIDSlotState(icc: .presentActive, command: .processed),
                kind: .dataBlock(chainParameter: 0, data: answerToReset))
        case .powerOff:
            response = CCIDResponse(
                slot: slot, sequence: sequence, state: CCIDSlotState(icc: .presentInactive, command: .processed),
                kind: .slotStatus(clockStatus: 0))
        case .setParameters:
            // Parameters carries bProtocolNum in byte 9 and the same structure as the request.
            var bytes = command
            bytes[0] = CCIDMessageType.parameters.rawValue
            bytes[7] = 0
            bytes[8] = 0
            bytes[9] = command[7]
            return bytes
        case .protocolAndParameterSelection:
            response = CCIDResponse(
                slot: slot, sequence: sequence, state: CCIDSlotState(icc: .presentActive, command: .processed),
                kind: .dataBlock(chainParameter: 0, data: payload))
        case .informationFieldSize:
            var block = payload
            block[1] = 0xE1
            block[4] = block[0] ^ block[1] ^ block[2] ^ block[3]
            response = CCIDResponse(
                slot: slot, sequence: sequence, state: CCIDSlotState(icc: .presentActive, command: .processed),
                kind: .dataBlock(chainParameter: 0, data: block))
        }
        return response.encoded()
    }
}
