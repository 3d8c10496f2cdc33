import CardFlow
import CardFlowCCID
import CardFlowCCIDProtocol
import Logging

// Building and queuing RDR_to_PC answers, and taking injected faults.
extension VirtualCCIDReader {
    // MARK: - Replies

    /// `count` time-extension frames (bStatus 0x80, bError = `multiplier`) for the command
    /// `response` answers, queued ahead of it.
    private func enqueueTimeExtensions(count: Int, multiplier: UInt8, for response: CCIDResponse) {
        for _ in 0..<count {
            let extensionFrame = CCIDResponse(
                slot: response.slot, sequence: response.sequence,
                state: .init(icc: .presentActive, command: .timeExtension),
                errorCode: multiplier, kind: .dataBlock(chainParameter: 0, data: []))
            enqueue(extensionFrame.encoded(), delay: .zero)
        }
    }

    func reply(_ response: CCIDResponse, delay: Duration, cardExchange: Bool = false) {
        var response = response
        if response.state.command == .processed { response.errorCode = configuration.errorCodeOnSuccess }
        if cardExchange, configuration.timeExtensionsPerExchange > 0 {
            enqueueTimeExtensions(count: configuration.timeExtensionsPerExchange, multiplier: 1, for: response)
        }
        if cardExchange, let index = faults.firstIndex(where: { if case .timeExtensions = $0 { true } else { false } }),
            case .timeExtensions(let count, let multiplier) = faults.remove(at: index)
        {
            enqueueTimeExtensions(count: count, multiplier: multiplier, for: response)
        }
        if cardExchange,
            case .timeExtensionStorm(let interval, let multiplier)? = takeFault(where: {
                if case .timeExtensionStorm = $0 { true } else { false }
            })
        {
            // The card never answers; the reader keeps asking for more time instead, the first
            // time at once (before the host's first timeout), then every `interval`.
            storm = TimeExtensionStorm(
                slot: response.slot, sequence: response.sequence, multiplier: multiplier,
                interval: interval, nextFrameAt: clock.now())
            return
        }
        if takeFault(.wrongSequence) { response.sequence &+= 1 }
        if takeFault(.randomSequence) { response.sequence = UInt8(truncatingIfNeeded: random.next()) }
        // Moved out: written into while this reader holds the only reference, it costs no allocation.
        var bytes: [UInt8] = []
        swap(&bytes, &lentAnswerStorage)
        response.encode(into: &bytes)
        if takeFault(.shortResponse) { bytes = Array(bytes.prefix(max(1, bytes.count / 2))) }
        if takeFault(.garbledResponse) {
            let length = Int(random.next() % 40) + 1
            bytes = (0..<length).map { _ in UInt8(truncatingIfNeeded: random.next()) }
        }
        if takeFault(.oversizedResponse), case .dataBlock(let chain, let data) = response.kind {
            // One byte more than the host's buffer for this reader can take.
            let padding = CCIDDriver.readBufferLength(for: configuration.descriptor) + 1 - bytes.count
            response.kind = .dataBlock(
                chainParameter: chain, data: data + [UInt8](repeating: 0x90, count: max(padding, 1)))
            bytes = response.encoded()
        }
        if case .lengthFieldMismatch(let declared)? = takeFault(where: {
            if case .lengthFieldMismatch = $0 { true } else { false }
        }), bytes.count >= ccidHeaderLength {
            bytes.replaceSubrange(
                1..<5,
                with: [
                    UInt8(truncatingIfNeeded: declared), UInt8(truncatingIfNeeded: declared >> 8),
                    UInt8(truncatingIfNeeded: declared >> 16), UInt8(truncatingIfNeeded: declared >> 24),
                ])
        }
        if takeFault(.emptyTransfer) { enqueue([], delay: .zero) }
        if takeFault(.stall) { stallNextRead = true }
        enqueue(bytes, delay: delay)
        if takeFault(.duplicateResponse) { enqueue(bytes, delay: delay) }
    }

    func answerMalformed(_ bytes: [UInt8], error: CCIDFrameError) {
        // Copy bSlot/bSeq when the header got through, as a reader does.
        let slot = bytes.count > 5 ? bytes[5] : 0
        let sequence = bytes.count > 6 ? bytes[6] : 0
        let code: CCIDSlotError
        switch error {
        case .unknownMessageType: code = .commandNotSupported
        case .invalidField(_, let offset, _): code = .badParameter(offset: UInt8(clamping: offset))
        default: code = .badParameter(offset: 1)
        }
        let icc = slots.indices.contains(Int(slot)) ? slots[Int(slot)].iccStatus : .absent
        let response = CCIDResponse(
            slot: slot, sequence: sequence, state: .init(icc: icc, command: .failed),
            errorCode: code.rawValue, kind: .slotStatus(clockStatus: 0))
        enqueue(response.encoded(), delay: configuration.timing.readerOnlyTime)
    }

    func enqueue(_ bytes: [UInt8], delay: Duration) {
        if bulkInQueue.count >= Self.maxQueuedBulkIn { bulkInQueue.removeFirst() }
        bulkInQueue.append((bytes, delay == .zero ? .zero : clock.now() + delay))
        wake(.bulkIn)
    }

    func takeCardWaitingTimeExtension() -> UInt8? {
        guard let index = faults.firstIndex(where: { if case .cardWaitingTimeExtension = $0 { true } else { false } }),
            case .cardWaitingTimeExtension(let multiplier) = faults.remove(at: index)
        else { return nil }
        return multiplier
    }

    /// Removes and returns the first pending fault that `matches`.
    func takeFault(where matches: (ReaderFault) -> Bool) -> ReaderFault? {
        guard let index = faults.firstIndex(where: matches) else { return nil }
        return faults.remove(at: index)
    }

    func takeFault(_ fault: ReaderFault) -> Bool {
        guard let index = faults.firstIndex(of: fault) else { return false }
        faults.remove(at: index)
        return true
    }

    func status(_ command: CCIDCommand, icc: CCIDSlotState.ICCStatus) -> CCIDResponse {
        CCIDResponse(
            slot: command.slot, sequence: command.sequence, state: .init(icc: icc, command: .processed),
            kind: .slotStatus(clockStatus: 0))
    }

    func dataBlock(_ command: CCIDCommand, data: [UInt8], chain: UInt8 = CCIDChainParameter.complete)
        -> CCIDResponse
    {
        CCIDResponse(
            slot: command.slot, sequence: command.sequence, state: .init(icc: .presentActive, command: .processed),
            kind: .dataBlock(chainParameter: chain, data: data))
    }

    func parameters(_ command: CCIDCommand, _ parameters: CCIDProtocolParameters) -> CCIDResponse {
        CCIDResponse(
            slot: command.slot, sequence: command.sequence,
            state: .init(icc: slots[Int(command.slot)].iccStatus, command: .processed), kind: .parameters(parameters))
    }

    /// A failed answer of the type the command expects (DataBlock for card exchanges).
    func failure(_ command: CCIDCommand, error: CCIDSlotError, icc: CCIDSlotState.ICCStatus) -> CCIDResponse {
        let kind: CCIDResponse.Kind
        switch command.messageType.responseType {
        case .dataBlock: kind = .dataBlock(chainParameter: 0, data: [])
        case .parameters: kind = .parameters(.other(protocolNumber: 0, data: []))
        case .escapeResponse: kind = .escape([])
        default: kind = .slotStatus(clockStatus: 0)
        }
        return CCIDResponse(
            slot: command.slot, sequence: command.sequence, state: .init(icc: icc, command: .failed),
            errorCode: error.rawValue, kind: kind)
    }

    func answerToReset(for card: any VirtualCard) -> [UInt8] {
        ContactlessATR.atr(for: card.technology)
    }
}
