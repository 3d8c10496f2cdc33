import CardFlow
import CardFlowCCID
import CardFlowCCIDProtocol
import Logging

// Dispatch of one CCID command to its handler (PC_to_RDR messages other than transfers).
extension VirtualCCIDReader {
    // MARK: - Command handling

    func handle(_ command: CCIDCommand) {
        let index = Int(command.slot)
        let readerTime = configuration.timing.readerOnlyTime
        switch command.kind {
        case .getSlotStatus:
            reply(status(command, icc: slots[index].iccStatus), delay: readerTime)
        case .iccPowerOn:
            guard var card = slots[index].card else {
                reply(
                    CCIDResponse(
                        slot: command.slot, sequence: command.sequence, state: .init(icc: .absent, command: .failed),
                        errorCode: CCIDSlotError.iccMute.rawValue, kind: .dataBlock(chainParameter: 0, data: [])),
                    delay: readerTime)
                return
            }
            if slots[index].extraCardsInField > 0 {
                // Two cards answer the anticollision: the reader cannot activate either, and
                // reports a present but mute card, as contactless readers do.
                reply(
                    CCIDResponse(
                        slot: command.slot, sequence: command.sequence,
                        state: .init(icc: .presentInactive, command: .failed),
                        errorCode: CCIDSlotError.iccMute.rawValue, kind: .dataBlock(chainParameter: 0, data: [])),
                    delay: readerTime)
                return
            }
            card.powerOn()
            slots[index].card = card
            slots[index].powered = true
            slots[index].commandChain = nil
            slots[index].pendingResponse = []
            slots[index].t1 = nil
            slots[index].t0 = nil
            slots[index].contactLink = nil
            slots[index].ppsAllowed = false
            slots[index].characterLine = nil
            let level = configuration.descriptor.exchangeLevel
            if level == .tpdu || level == .character {
                if let interface = card.contactInterface {
                    slots[index].contactLink = ContactLink(
                        interface: interface,
                        readerNegotiates: configuration.descriptor.features.contains(.automaticParameterNegotiation),
                        readerProtocols: configuration.descriptor.protocols)
                } else {
                    // A contactless card behind a TPDU reader: the reader frames T=1 whatever
                    // the synthesised ATR lists first.
                    slots[index].t1 = T1CardEndpoint(ifsc: 254)
                    slots[index].ppsAllowed = true
                }
            }
            var atr = answerToReset(for: card)
            if level == .character {
                // The host drives the I/O line from here on; the reader may hand over only the
                // start of the ATR, the rest stays on the line.
                let behaviour = configuration.characterLine
                let kept = min(max(behaviour.atrBytesInPowerOn ?? atr.count, 0), atr.count)
                slots[index].characterLine = CharacterLine(
                    behaviour: behaviour, atrRest: Array(atr[kept...]),
                    supportsEnvelope: card.contactInterface?.supportsEnvelope ?? true,
                    ifsc: Int(card.contactInterface?.ifsc ?? 254),
                    checksum: card.contactInterface?.errorDetection.t1Checksum ?? .lrc)
                slots[index].t1 = nil
                atr = Array(atr[..<kept])
            }
            reply(dataBlock(command, data: atr), delay: readerTime)
        case .iccPowerOff:
            if slots[index].card != nil {
                slots[index].powered = false
                slots[index].t1 = nil
                slots[index].t0 = nil
                slots[index].contactLink = nil
                slots[index].characterLine = nil
                slots[index].ppsAllowed = false
                slots[index].commandChain = nil
                slots[index].pendingResponse = []
            }
            reply(status(command, icc: slots[index].iccStatus), delay: readerTime)
        case .xfrBlock(_, let level, let data):
            // The bulk-OUT path hands XfrBlocks to handleXfrBlock with their data still in the
            // message; this stays for a command handled whole.
            handleXfrBlock(command, level: level, data: ReceivedTransferData(data: data))
        case .getParameters:
            reply(parameters(command, slots[index].parameters), delay: readerTime)
        case .resetParameters:
            slots[index].parameters = .defaultT1
            reply(parameters(command, slots[index].parameters), delay: readerTime)
        case .setParameters(let requested):
            if var link = slots[index].contactLink, !link.readerNegotiates {
                guard setContactParameters(requested, link: &link) else {
                    reply(
                        failure(command, error: .badParameter(offset: 10), icc: slots[index].iccStatus),
                        delay: readerTime)
                    return
                }
                slots[index].contactLink = link
            }
            slots[index].parameters = requested
            reply(parameters(command, requested), delay: readerTime)
        case .escape(let data):
            if let answer = escapeFromFirmware(data, slot: index) {
                reply(
                    CCIDResponse(
                        slot: command.slot, sequence: command.sequence,
                        state: .init(icc: slots[index].iccStatus, command: .processed), kind: .escape(answer)),
                    delay: readerTime)
            } else if data.isEmpty {
                reply(
                    CCIDResponse(
                        slot: command.slot, sequence: command.sequence,
                        state: .init(icc: slots[index].iccStatus, command: .processed),
                        kind: .escape(Array(configuration.firmwareVersion.utf8))), delay: readerTime)
            } else {
                reply(failure(command, error: .commandNotSupported, icc: slots[index].iccStatus), delay: readerTime)
            }
        case .abort:
            abortPending(slot: command.slot, sequence: command.sequence)
            reply(status(command, icc: slots[index].iccStatus), delay: .zero)
        case .setDataRateAndClockFrequency:
            reply(
                CCIDResponse(
                    slot: command.slot, sequence: command.sequence,
                    state: .init(icc: slots[index].iccStatus, command: .processed),
                    kind: .dataRateAndClockFrequency(
                        clockFrequency: configuration.descriptor.defaultClock,
                        dataRate: configuration.descriptor.dataRate)), delay: readerTime)
        case .iccClock, .t0APDU, .mechanical, .secure:
            reply(failure(command, error: .commandNotSupported, icc: slots[index].iccStatus), delay: readerTime)
        }
    }
}
