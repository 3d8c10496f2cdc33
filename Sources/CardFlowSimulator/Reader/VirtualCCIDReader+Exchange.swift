import CardFlow
import CardFlowCCID
import CardFlowCCIDProtocol
import Logging

// XfrBlock at every exchange level (short/extended APDU, TPDU T=1 and T=0, character),
// and the card exchange behind it.
extension VirtualCCIDReader {
    /// `transfer`: a TPDU, or the characters of a character-level reader, stays where it lies
    /// until a path keeps it (a T=1 block is read there, characters go to the line one by one); at
    /// the APDU levels the data is the command and is taken at once.
    func handleXfrBlock(_ command: CCIDCommand, level: UInt16, data transfer: consuming ReceivedTransferData) {
        let index = Int(command.slot)
        let readerTime = configuration.timing.readerOnlyTime
        let exchangeLevel = configuration.descriptor.exchangeLevel
        let apduLevel = exchangeLevel == .shortAPDU || exchangeLevel == .extendedAPDU
        let data = apduLevel ? transfer.take() : []
        if apduLevel, answerFromFirmware(command, level: level, apdu: data) { return }
        guard slots[index].card != nil else {
            reply(failure(command, error: .iccMute, icc: .absent), delay: readerTime)
            return
        }
        guard slots[index].powered else {
            reply(failure(command, error: .iccMute, icc: .presentInactive), delay: readerTime)
            return
        }
        if takeFault(.iccMute) {
            reply(failure(command, error: .iccMute, icc: .presentActive), delay: readerTime)
            return
        }
        let maxPayload = configuration.descriptor.maxPayloadPerMessage
        switch configuration.descriptor.exchangeLevel {
        case .character:
            handleCharacterXfrBlock(command, level: level, data: transfer.bytes, slot: index)
        case .tpdu:
            if var link = slots[index].contactLink {
                guard !link.cardMute else {
                    reply(failure(command, error: .iccMute, icc: .presentActive), delay: readerTime)
                    return
                }
                if link.ppsAllowed, ContactLink.isPPSRequest(transfer.bytes) {
                    let answer = link.answerPPS(transfer.take())
                    slots[index].contactLink = link
                    if let answer {
                        reply(dataBlock(command, data: answer), delay: readerTime, cardExchange: true)
                    } else {
                        reply(failure(command, error: .iccMute, icc: .presentActive), delay: readerTime)
                    }
                    return
                }
                link.ppsAllowed = false
                slots[index].contactLink = link
                // Reader and card at different protocols or speeds: nothing readable arrives.
                guard link.inStep else {
                    reply(failure(command, error: .iccMute, icc: .presentActive), delay: readerTime)
                    return
                }
                if link.cardProtocol == 0 {
                    handleT0(command, tpdu: transfer.take(), slot: index)
                    return
                }
                if slots[index].t1 == nil {
                    slots[index].t1 = T1CardEndpoint(
                        ifsc: Int(link.interface.ifsc), checksum: link.interface.errorDetection.t1Checksum)
                }
            } else if slots[index].ppsAllowed {
                slots[index].ppsAllowed = false
                if ContactLink.isPPSRequest(transfer.bytes) {
                    // A contactless card behind the reader runs T=1: it confirms a request for
                    // T=1 (PPS0 bits 4-1; pcsc-lite's CCID driver sends FF 01 FE) by echoing it
                    // (ISO/IEC 7816-3 §9.3), and stays mute otherwise.
                    let request = transfer.take()
                    if request[1] & 0x0F == 1 {
                        reply(dataBlock(command, data: request), delay: readerTime, cardExchange: true)
                    } else {
                        reply(failure(command, error: .iccMute, icc: .presentActive), delay: readerTime)
                    }
                    return
                }
            }
            // A contactless card runs T=1 only: with the reader set to T=0, or a reader without
            // T=1, what comes back is no T=0 answer, and a real reader reports the card mute
            // rather than pass on garbage.
            if slots[index].contactLink == nil,
                slots[index].parameters.protocolNumber != 1 || !configuration.descriptor.protocols.contains(.t1)
            {
                logger.warning(
                    "a T=0 exchange with a contactless card (T=1 only): the card stays mute",
                    metadata: ["slot": "\(index)"])
                reply(failure(command, error: .iccMute, icc: .presentActive), delay: readerTime)
                return
            }
            guard var t1 = slots[index].t1.take() else {
                reply(failure(command, error: .iccMute, icc: .presentActive), delay: readerTime)
                return
            }
            if takeFault(.corruptT1Block) { t1.corruptNextBlockChecksum() }
            let event = t1.receive(transfer.bytes)
            // A storm of S(WTX) requests lasts only while the host keeps granting them; any
            // other block (a resynchronisation, a new command) ends it.
            if case .waitingTimeExtensionGranted = event {} else { slots[index].waitingTimeExtensionStorm = nil }
            switch event {
            case .send(let block):
                slots[index].t1 = t1
                replyT1Block(command, block, slot: index, delay: readerTime, cardExchange: true)
            case .commandComplete(let apdu):
                // Moved, not copied, both ways: a copy would share the endpoint's block storage,
                // and its next block would allocate.
                slots[index].t1 = consume t1
                let (response, time) = processAPDU(apdu, slot: index, usbMessages: 1)
                guard var endpoint = slots[index].t1.take() else {
                    // The card left during the exchange.
                    reply(failure(command, error: .iccMute, icc: slots[index].iccStatus), delay: time)
                    return
                }
                if case .waitingTimeExtensionStorm(let interval, let multiplier)? = takeFault(where: {
                    if case .waitingTimeExtensionStorm = $0 { true } else { false }
                }) {
                    slots[index].waitingTimeExtensionStorm = (multiplier, interval)
                    slots[index].pendingT1Response = response
                    let block = endpoint.requestWaitingTimeExtension(multiplier: multiplier)
                    slots[index].t1 = endpoint
                    replyT1Block(command, block, slot: index, delay: time + interval, cardExchange: true)
                    return
                }
                if let multiplier = takeCardWaitingTimeExtension() {
                    // The card asks for more time with S(WTX) and answers once the host grants it.
                    slots[index].pendingT1Response = response
                    let block = endpoint.requestWaitingTimeExtension(multiplier: multiplier)
                    slots[index].t1 = endpoint
                    replyT1Block(command, block, slot: index, delay: time, cardExchange: true)
                    return
                }
                let block = endpoint.respond(with: response)
                slots[index].t1 = endpoint
                replyT1Block(command, block, slot: index, delay: time, cardExchange: true)
            case .waitingTimeExtensionGranted:
                if let (multiplier, interval) = slots[index].waitingTimeExtensionStorm {
                    // The card keeps asking for more time and never answers.
                    let block = t1.requestWaitingTimeExtension(multiplier: multiplier)
                    slots[index].t1 = t1
                    replyT1Block(command, block, slot: index, delay: readerTime + interval, cardExchange: true)
                    return
                }
                let response = slots[index].pendingT1Response ?? [0x6F, 0x00]
                slots[index].pendingT1Response = nil
                let block = t1.respond(with: response)
                slots[index].t1 = t1
                replyT1Block(command, block, slot: index, delay: readerTime, cardExchange: true)
            }
        case .shortAPDU, .extendedAPDU:
            let extended = configuration.descriptor.exchangeLevel == .extendedAPDU
            switch level {
            case CCIDLevelParameter.complete:
                slots[index].commandChain = nil
                let (response, time) = processAPDU(data, slot: index, usbMessages: 1)
                deliver(response, for: command, slot: index, delay: time)
            case CCIDLevelParameter.begins where extended:
                slots[index].commandChain = data
                reply(dataBlock(command, data: [], chain: CCIDChainParameter.expectsMore), delay: readerTime)
            case CCIDLevelParameter.continues where extended && slots[index].commandChain != nil:
                guard (slots[index].commandChain?.count ?? 0) + data.count <= Self.maxChainedCommandLength else {
                    // A host that chains without end must not grow the reader's memory.
                    slots[index].commandChain = nil
                    reply(failure(command, error: .badParameter(offset: 8), icc: .presentActive), delay: readerTime)
                    return
                }
                slots[index].commandChain! += data
                reply(dataBlock(command, data: [], chain: CCIDChainParameter.expectsMore), delay: readerTime)
            case CCIDLevelParameter.ends where extended && slots[index].commandChain != nil:
                let apdu = slots[index].commandChain! + data
                slots[index].commandChain = nil
                // Earlier parts were answered with their own reader time; this one carries the card exchange.
                let (response, time) = processAPDU(apdu, slot: index, usbMessages: 1)
                deliver(response, for: command, slot: index, delay: time)
            case CCIDLevelParameter.nextResponsePart where !slots[index].pendingResponse.isEmpty:
                let pending = slots[index].pendingResponse
                let part = Array(pending.prefix(maxPayload))
                slots[index].pendingResponse = Array(pending.dropFirst(part.count))
                let chain =
                    slots[index].pendingResponse.isEmpty ? CCIDChainParameter.ends : CCIDChainParameter.continues
                reply(dataBlock(command, data: part, chain: chain), delay: readerTime)
            default:
                // A chaining step out of order: the offending field is wLevelParameter (offset 8).
                slots[index].commandChain = nil
                reply(failure(command, error: .badParameter(offset: 8), icc: .presentActive), delay: readerTime)
            }
        }
    }

    /// Character level: the bytes go to the card's I/O line, and exactly wLevelParameter bytes
    /// of what the card sends come back (CCID rev 1.1 §6.1.4). A card that stops sending before
    /// that many makes the reader time out: ICC_MUTE.
    func handleCharacterXfrBlock(_ command: CCIDCommand, level: UInt16, data: ArraySlice<UInt8>, slot index: Int) {
        // The line and the link are taken out of the slot while they work, and the card is read
        // where it lies: copies left behind would share their storage, and each change of a
        // buffer of the line, of the card's T=1 endpoint or of a boxed card would copy it first
        // (four of the sixteen allocations of a short T=1 APDU).
        guard var line = slots[index].characterLine.take() else {
            reply(
                failure(command, error: .iccMute, icc: slots[index].iccStatus),
                delay: configuration.timing.readerOnlyTime)
            return
        }
        if takeFault(.corruptT1Block) {
            line.corruptNextT1Block()
            characterLineFaultsShown["corruptT1Block", default: 0] += 1
        }
        if case .characterLine(let fault)? = takeFault(where: { if case .characterLine = $0 { true } else { false } }) {
            line.inject(fault)
        }
        var link = slots[index].contactLink.take()
        var time = configuration.timing.readerOnlyTime
        line.receive(
            data, link: &link, takesData: { slots[index].card?.t0TakesData(header: $0) ?? false },
            process: { apdu in
                let (response, cardTime) = processAPDU(apdu, slot: index, usbMessages: 1)
                time = cardTime
                // A card lifted by the exchange answers nothing.
                return slots[index].card == nil ? [] : response
            })
        // The card may have left during the exchange (lift-after): its line is gone with it.
        guard slots[index].card != nil else {
            reply(failure(command, error: .iccMute, icc: slots[index].iccStatus), delay: time)
            return
        }
        if let shown = line.takeFaultShown() { characterLineFaultsShown[shown, default: 0] += 1 }
        let wanted = Int(level)
        var answer = line.read(wanted) ?? (line.behaviour.readerReturnsShortAnswers ? line.drain() : nil)
        if answer == nil { _ = line.drain() }
        // Moved back, not copied (a copy, then the local's destruction, were a twentieth of a
        // character-level T=0 exchange).
        slots[index].characterLine = consume line
        slots[index].contactLink = consume link
        if let data = answer {
            reply(dataBlock(command, data: data), delay: time, cardExchange: true)
        } else {
            reply(failure(command, error: .iccMute, icc: .presentActive), delay: time)
        }
        // The answer is written into the host's message by now: its storage goes back to the
        // line (in place in the slot, which holds the line's only copy).
        if let spent = answer.take() { slots[index].characterLine?.recycle(spent) }
    }

    /// One T=0 TPDU with a contact card (the reader collapses the procedure bytes).
    func handleT0(_ command: CCIDCommand, tpdu: [UInt8], slot index: Int) {
        let readerTime = configuration.timing.readerOnlyTime
        var endpoint =
            slots[index].t0
            ?? T0CardEndpoint(supportsEnvelope: slots[index].contactLink?.interface.supportsEnvelope ?? true)
        switch endpoint.receive(tpdu) {
        case .respond(let answer):
            slots[index].t0 = endpoint
            reply(dataBlock(command, data: answer), delay: readerTime, cardExchange: true)
        case .process(let apdu):
            let (response, time) = processAPDU(apdu, slot: index, usbMessages: 1)
            guard slots[index].card != nil, !response.isEmpty else {
                // The card left during the exchange.
                reply(failure(command, error: .iccMute, icc: slots[index].iccStatus), delay: time)
                return
            }
            let answer = endpoint.respond(with: response)
            slots[index].t0 = endpoint
            reply(dataBlock(command, data: answer), delay: time, cardExchange: true)
        }
    }

    /// SetParameters with a contact card: the reader takes the protocol and speed; a reader
    /// that makes the PPS itself (dwFeatures 0x80) negotiates them with the card first, runs
    /// at what the card accepted, and refuses when the card refuses (both then keep theirs).
    func setContactParameters(_ requested: CCIDProtocolParameters, link: inout ContactLink) -> Bool {
        let protocolNumber = requested.protocolNumber
        guard protocolNumber <= 1, let factors = requested.bytes.first else { return false }
        if configuration.descriptor.features.contains(.automaticPPS), link.ppsAllowed,
            protocolNumber != link.cardProtocol || factors != link.cardFactors
        {
            var trial = link
            let request: [UInt8] = [0xFF, 0x10 | protocolNumber, factors, 0xFF ^ 0x10 ^ protocolNumber ^ factors]
            guard trial.answerPPS(request) != nil, !trial.cardMute else { return false }
            // The reader runs at what the card accepted (it may have kept Fd/Dd).
            link = trial
            link.readerProtocol = protocolNumber
            link.readerFactors = trial.cardFactors
            return true
        }
        link.readerProtocol = protocolNumber
        link.readerFactors = factors
        if protocolNumber == 1, requested.bytes.count > 1 {
            link.readerT1ErrorDetection = requested.bytes[1] & 0x01 != 0 ? .crc : .lrc
        }
        return true
    }

    /// A T=1 block from the card at TPDU level, as the reader frames it by the EDC length it
    /// was set to (``ContactLink/blockAsReaderFramesIt(_:)``).
    func replyT1Block(
        _ command: CCIDCommand, _ block: [UInt8], slot index: Int, delay: Duration, cardExchange: Bool
    ) {
        guard let link = slots[index].contactLink else {
            reply(dataBlock(command, data: block), delay: delay, cardExchange: cardExchange)
            return
        }
        if let framed = link.blockAsReaderFramesIt(block) {
            reply(dataBlock(command, data: framed), delay: delay, cardExchange: cardExchange)
        } else {
            reply(failure(command, error: .iccMute, icc: .presentActive), delay: delay)
        }
    }

    /// Sends a response APDU, chaining it over several DataBlocks when it exceeds one message.
    func deliver(_ response: [UInt8], for command: CCIDCommand, slot index: Int, delay: Duration) {
        let maxPayload = configuration.descriptor.maxPayloadPerMessage
        // An empty answer means the card was gone before the command reached it.
        guard !response.isEmpty else {
            reply(failure(command, error: .iccMute, icc: slots[index].iccStatus), delay: delay)
            return
        }
        if response.count <= maxPayload {
            reply(dataBlock(command, data: response), delay: delay, cardExchange: true)
        } else {
            slots[index].pendingResponse = Array(response.dropFirst(maxPayload))
            reply(
                dataBlock(command, data: Array(response.prefix(maxPayload)), chain: CCIDChainParameter.begins),
                delay: delay, cardExchange: true)
        }
    }

    /// Runs one APDU on the card (PC/SC part 3 pseudo-APDUs are answered by the reader) and
    /// returns the answer with the time the exchange takes.
    func processAPDU(_ apdu: [UInt8], slot index: Int, usbMessages: Int) -> ([UInt8], Duration) {
        guard var card = slots[index].card else { return ([], configuration.timing.readerOnlyTime) }
        let response: [UInt8]
        let cardTime: Duration
        let responder =
            card.readerPassThroughInstructions.isEmpty
            ? part3
            : PCSCPart3Responder(passThroughInstructions: card.readerPassThroughInstructions)
        if let answer = responder.response(to: apdu, card: card) {
            // Answered by the reader itself: the card sees nothing, so it does not count as one
            // of the card's APDUs (lift-after counts what reaches the card).
            let time = configuration.timing.exchangeTime(
                commandLength: apdu.count, responseLength: answer.count,
                cardTime: .zero, usbMessages: usbMessages)
            return (answer, time)
        } else {
            apdusProcessed += 1
            // Out of its slot while it works, the card value is the only reference to a boxed
            // card's storage, so a mutating process changes it in place instead of copying it.
            slots[index].card = nil
            cardTime = card.processingTime(for: apdu)
            response = card.process(apdu)
            slots[index].card = card
            if response.isEmpty, let reporting = card as? any DivergenceReportingVirtualCard,
                let divergence = reporting.divergence
            {
                logger.error("the card stopped answering", metadata: ["reason": "\(divergence)"])
            }
        }
        let time = configuration.timing.exchangeTime(
            commandLength: apdu.count, responseLength: response.count,
            cardTime: cardTime, usbMessages: usbMessages)
        if var plan = liftPlan, plan.slot == index {
            plan.remainingAPDUs -= 1
            liftPlan = plan
            if plan.remainingAPDUs <= 0 { executeLift() }
        }
        return (response, time)
    }
}
