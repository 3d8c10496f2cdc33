import CardFlowAsyncAdmission
import Logging

// Power-on with voltage selection, and the exchange levels: short and extended APDU (chained
// answers included) and TPDU with T=1 (T=0 is in CCIDDriver+ProtocolSetup).
extension CCIDDriver {
    // MARK: - Power on

    func powerOnSelectingVoltage(slot: UInt8) async throws -> [UInt8] {
        let automatic =
            descriptor.features.contains(.automaticVoltageSelection)
            || descriptor.features.contains(.automaticActivation)
        var selections: [CCIDPowerSelect] = []
        if automatic {
            selections = [.automatic]
        } else {
            // pcsc-lite's order: 5 V, then 1.8 V, then 3 V, skipping voltages the reader lacks.
            if descriptor.voltageSupport & 0x01 != 0 { selections.append(.volts5) }
            if descriptor.voltageSupport & 0x04 != 0 { selections.append(.volts1_8) }
            if descriptor.voltageSupport & 0x02 != 0 { selections.append(.volts3) }
            if selections.isEmpty { selections = [.automatic] }
        }
        var lastError: any Error = CCIDDriverError.noCard
        for select in selections {
            do {
                let response = try await exchange(
                    .iccPowerOn(select), slot: slot, timeout: configuration.powerOnTimeout)
                guard case .dataBlock(_, let atr) = response.kind else {
                    throw CCIDDriverError.unexpectedResponse(response.messageType, during: .iccPowerOn)
                }
                return atr
            } catch CCIDDriverError.noCard {
                throw CCIDDriverError.noCard
            } catch let error as CCIDDriverError {
                guard case .slotError = error else { throw error }
                lastError = error
            }
        }
        throw lastError
    }

    /// Forgets what the driver knew about the card in `slot` (power-off, removal, new power-on).
    func forgetCard(slot: UInt8) {
        poweredSlots[slot] = nil
        retiredT1Recoveries += t1Sessions[slot]?.recoveries ?? 0
        t1Sessions[slot] = nil
        activeProtocols[slot] = nil
    }

    // MARK: - Exchange levels

    /// One XfrBlock; `answerStorage` is lent for the answer (``exchange(_:slot:timeout:failureIsError:handingOverData:lending:)``).
    /// With `handingOver`, `data` is framed in its own storage (data the caller no longer holds).
    func xfrBlock(
        _ data: consuming [UInt8], slot: UInt8, bwi: UInt8 = 0, level: UInt16 = CCIDLevelParameter.complete,
        timeout: Duration? = nil, handingOver: Bool = false, lending answerStorage: consuming [UInt8] = []
    ) async throws -> (chain: UInt8, data: [UInt8]) {
        let response = try await exchange(
            .xfrBlock(blockWaitingTimeMultiplier: bwi, levelParameter: level, data: consume data),
            slot: slot, timeout: timeout ?? configuration.readTimeout, handingOverData: handingOver,
            lending: consume answerStorage)
        guard case .dataBlock(let chain, let payload) = response.kind else {
            throw CCIDDriverError.unexpectedResponse(response.messageType, during: .xfrBlock)
        }
        return (chain, payload)
    }

    /// One whole command APDU in one XfrBlock at APDU level. An empty, unchained DataBlock is no
    /// response APDU (a response has at least SW1 SW2); the ACR122U sends one with bStatus
    /// "processed" and bError ICC_MUTE when the tag did not answer (pcscd logs in pyscard#18 and
    /// libnfc#263), so that answer means a mute card, not an empty response.
    /// The APDU is handed over: framed in its own storage (``exchange(_:slot:timeout:failureIsError:handingOverData:lending:)``).
    @inline(__always) // a call of its own costs a hop back to the driver after every await of it
    func apduLevelXfrBlock(_ apdu: consuming [UInt8], slot: UInt8) async throws -> (chain: UInt8, data: [UInt8]) {
        let response = try await exchange(
            .xfrBlock(blockWaitingTimeMultiplier: 0, levelParameter: CCIDLevelParameter.complete, data: consume apdu),
            slot: slot, timeout: configuration.readTimeout, handingOverData: true)
        guard case .dataBlock(let chain, let payload) = response.kind else {
            throw CCIDDriverError.unexpectedResponse(response.messageType, during: .xfrBlock)
        }
        if payload.isEmpty, chain == CCIDChainParameter.complete, response.errorCode == 0xFE {
            throw CCIDDriverError.cardMute(during: .xfrBlock)
        }
        return (chain, payload)
    }

    @inline(__always) // a call of its own costs a hop back to the driver after every await of it
    func transmitShort(_ apdu: consuming [UInt8], slot: UInt8) async throws -> [UInt8] {
        guard apdu.count <= descriptor.maxPayloadPerMessage else {
            throw CCIDDriverError.commandTooLong(length: apdu.count, maximum: descriptor.maxPayloadPerMessage)
        }
        let first = try await apduLevelXfrBlock(consume apdu, slot: slot)
        return try await collectChainedResponse(first, slot: slot)
    }

    func transmitExtended(_ apdu: consuming [UInt8], slot: UInt8) async throws -> [UInt8] {
        let chunk = descriptor.maxPayloadPerMessage
        guard apdu.count > chunk else {
            return try await collectChainedResponse(try await apduLevelXfrBlock(consume apdu, slot: slot), slot: slot)
        }
        guard apdu.count <= 65_544 else { throw CCIDDriverError.commandTooLong(length: apdu.count, maximum: 65_544) }
        var offset = 0
        var answer: (chain: UInt8, data: [UInt8]) = (0, [])
        while offset < apdu.count {
            let end = min(offset + chunk, apdu.count)
            let level: UInt16 =
                offset == 0
                ? CCIDLevelParameter.begins
                : (end == apdu.count ? CCIDLevelParameter.ends : CCIDLevelParameter.continues)
            answer = try await xfrBlock(Array(apdu[offset..<end]), slot: slot, level: level)
            offset = end
            if offset < apdu.count {
                // Between command parts the reader sends an empty DataBlock asking for more.
                guard answer.data.isEmpty else {
                    throw CCIDDriverError.chainingViolation(
                        "reader answered a partial command with \(answer.data.count) data bytes")
                }
            }
        }
        return try await collectChainedResponse(answer, slot: slot)
    }

    /// Follows bChainParameter until the response is complete, bounded in size.
    @inline(__always) // a call of its own costs a hop back to the driver after every await of it
    func collectChainedResponse(_ first: (chain: UInt8, data: [UInt8]), slot: UInt8) async throws -> [UInt8] {
        switch first.chain {
        case CCIDChainParameter.complete: return first.data
        case CCIDChainParameter.begins: break
        default:
            throw CCIDDriverError.chainingViolation("first response part has bChainParameter 0x\(hex2(first.chain))")
        }
        var response = first.data
        while true {
            let part = try await xfrBlock([], slot: slot, level: CCIDLevelParameter.nextResponsePart)
            response += part.data
            guard response.count <= configuration.maxResponseLength else {
                throw CCIDDriverError.responseTooLong(length: response.count, maximum: configuration.maxResponseLength)
            }
            switch part.chain {
            case CCIDChainParameter.ends: return response
            case CCIDChainParameter.continues:
                guard !part.data.isEmpty else { throw CCIDDriverError.chainingViolation("empty continuation part") }
            default:
                throw CCIDDriverError.chainingViolation("response part has bChainParameter 0x\(hex2(part.chain))")
            }
        }
    }

    func transmitT1(_ apdu: [UInt8], slot: UInt8) async throws -> [UInt8] {
        // Moved out, not copied: the protocol's block buffer stays uniquely referenced, so each
        // block is written into it without allocating (issue 40).
        guard var t1 = t1Sessions.removeValue(forSlot: slot) else { throw CCIDDriverError.cardNotPowered(slot: slot) }
        defer {
            if poweredSlots.contains(slot) {
                t1Sessions[slot] = t1
            } else {
                // The card was forgotten meanwhile (removed, powered off).
                retiredT1Recoveries += t1.recoveries
            }
        }
        if t1.isExchangeInProgress {
            // The previous exchange was abandoned (cancelled, timed out, aborted): get back in
            // step with the card before the next command.
            logger.debug("resynchronising T=1 after an abandoned exchange", metadata: ["slot": "\(slot)"])
            let resynchronisation = t1.beginResynchronisation()
            _ = try await runT1(&t1, first: consume resynchronisation, slot: slot)
        }
        // Consumed: held here for the whole exchange, its block buffer would be shared when
        // T1HostProtocol writes the third block into it (one allocation per chained command).
        let first = t1.begin(command: apdu)
        let response = try await runT1(&t1, first: consume first, slot: slot)
        guard response.count >= 2 else {
            // Valid blocks without a status word: most likely a block whose spoiled LEN passed
            // the EDC by chance, while the card still sends the rest of it.
            if exchangeLevel == .character {
                try await discardCharacters(slot: slot, bwi: 0, timeout: configuration.readTimeout)
            }
            throw CCIDDriverError.responseTooShort(length: response.count)
        }
        return response
    }

    /// Drives the T=1 state machine: at TPDU level each block travels in one XfrBlock, at
    /// character level byte-wise (``characterT1Block(_:slot:bwi:timeout:checksum:lending:)``);
    /// bBWI carries the card's waiting time extension. A silent card or a parity error counts as
    /// a T=1 time-out.
    func runT1(_ t1: inout T1HostProtocol, first action: consuming T1HostAction, slot: UInt8) async throws -> [UInt8] {
        for _ in 0..<configuration.maxT1Blocks {
            switch action {
            case .send(let block, let multiplier):
                let bwi: UInt8 = multiplier > 1 ? multiplier : 0
                let timeout = configuration.readTimeout * Int(max(multiplier, 1))
                do {
                    let answer =
                        exchangeLevel == .character
                        ? try await characterT1Block(
                            block, slot: slot, bwi: bwi, timeout: timeout, checksum: t1.checksum,
                            lending: t1.takeFreedStorage())
                        : try await xfrBlock(
                            block, slot: slot, bwi: bwi, timeout: timeout, lending: t1.takeFreedStorage()
                        ).data
                    // T1HostProtocol writes its next block into its other buffer, not the one held here.
                    action = t1.receive(answer)
                } catch CCIDDriverError.cardMute {
                    action = t1.timeoutOccurred()
                } catch CCIDDriverError.slotError(.parityError, _, _) {
                    action = t1.timeoutOccurred()
                }
            case .completed(let response):
                return response
            case .failed(let error):
                t1.reset()
                throw CCIDDriverError.t1Failure("\(error)")
            }
        }
        throw CCIDDriverError.t1Failure("more than \(configuration.maxT1Blocks) blocks for one APDU")
    }
}
