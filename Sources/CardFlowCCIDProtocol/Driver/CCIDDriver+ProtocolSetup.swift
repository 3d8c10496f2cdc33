import Logging

// Protocol and speed set-up after IccPowerOn (ISO/IEC 7816-3 §8–9, CCID §6.1.7), as the
// pcsc-lite CCID driver's IFDHSetProtocolParameters does it, plus the T=0 exchange.
extension CCIDDriver {
    /// The transmission protocol set up when the card in `slot` was powered on; nil when no
    /// card is powered, or when an APDU-level reader was left to choose it itself.
    public func activeProtocol(slot: UInt8 = 0) -> TransmissionProtocol? {
        activeProtocols[slot]
    }

    /// Chooses protocol and speed for the card whose ATR is `atr`, runs the PPS exchange (with
    /// cold resets and fallbacks when the card refuses it), SetParameters and, for T=1 at TPDU
    /// level, the IFSD exchange. Returns the ATR in force afterwards.
    func setUpProtocol(slot: UInt8, atr initialATR: [UInt8], preference: ProtocolPreference) async throws -> [UInt8] {
        // At TPDU and character level the host runs the protocol: it needs the ATR.
        let hostRunsProtocol = exchangeLevel == .tpdu || exchangeLevel == .character
        let mustSucceed = hostRunsProtocol || preference != .automatic
        let atr: AnswerToReset
        var selection: ProtocolSelection
        if let (known, chosen) = protocolSelectionMemo?.recall(atr: initialATR, preference: preference) {
            (atr, selection) = (known, chosen)
        } else {
            do {
                atr = try AnswerToReset(bytes: initialATR)
            } catch {
                guard mustSucceed else {
                    // APDU readers run the protocol themselves; an odd ATR is theirs to handle.
                    logger.debug(
                        "ATR not parsed; leaving protocol and parameters to the reader",
                        metadata: ["error": "\(error)"])
                    return initialATR
                }
                throw CCIDDriverError.invalidATR(error)
            }
            do {
                selection = try ProtocolSelection(
                    atr: atr, descriptor: descriptor, supportedDataRates: await readerDataRates(),
                    preference: preference, hostMaySendPPS: !configuration.quirks.contains(.noPPS))
            } catch {
                guard mustSucceed else {
                    logger.debug("no protocol selected; leaving it to the reader", metadata: ["error": "\(error)"])
                    return initialATR
                }
                throw CCIDDriverError.protocolSelection(error)
            }
            protocolSelectionMemo = ProtocolSelectionMemo(
                atrBytes: initialATR, preference: preference, atr: atr, selection: selection)
        }
        var currentATR = initialATR
        var factors = selection.factors
        while let request = selection.ppsRequest {
            let (outcome, answer) = try await exchangePPS(request, slot: slot)
            if case .accepted(let agreed) = outcome {
                factors = agreed
                logger.debug(
                    "PPS accepted", metadata: ["protocol": "\(request.transmissionProtocol)", "factors": "\(agreed)"])
                break
            }
            let reason: String
            if case .failed(let why) = outcome { reason = why } else { reason = "" }
            guard let next = selection.fallback else {
                throw CCIDDriverError.ppsFailed(request: request.bytes, answer: answer, reason: reason)
            }
            logger.info(
                "PPS refused; resetting the card and falling back",
                metadata: [
                    "request": "\(request.bytes.map(hex2).joined(separator: " "))", "reason": "\(reason)",
                    "next": "\(next.transmissionProtocol) at \(next.factors)",
                ])
            // ISO/IEC 7816-3 §9.3: after an unsuccessful PPS exchange the card is deactivated.
            currentATR = try await coldReset(slot: slot)
            selection = next
            factors = next.factors
        }
        if let parameters = selection.parameters(at: factors) {
            try await setParameters(parameters, slot: slot)
        }
        activeProtocols[slot] = selection.transmissionProtocol
        if hostRunsProtocol, selection.transmissionProtocol == .t1 {
            try await setUpT1Session(slot: slot, atr: atr)
        }
        return currentATR
    }

    /// Sends the PPS request (in one XfrBlock, or byte-wise at character level) and judges the answer; a mute card or a reader
    /// error (the card present) count as a failed exchange.
    private func exchangePPS(_ request: PPSRequest, slot: UInt8) async throws -> (PPSOutcome, [UInt8]) {
        logger.trace("PPS >", metadata: ["request": "\(request.bytes.map(hex2).joined(separator: " "))"])
        do {
            let answer =
                exchangeLevel == .character
                ? try await characterPPS(request.bytes, slot: slot)
                : try await xfrBlock(request.bytes, slot: slot).data
            logger.trace("PPS <", metadata: ["answer": "\(answer.map(hex2).joined(separator: " "))"])
            return (request.outcome(of: answer), answer)
        } catch CCIDDriverError.cardMute {
            return (.failed("the card did not answer"), [])
        } catch CCIDDriverError.slotError(let error, let state, _) where state.icc != .absent {
            return (.failed("the reader reported \(error)"), [])
        }
    }

    /// Power off, then on again; returns the new ATR.
    private func coldReset(slot: UInt8) async throws -> [UInt8] {
        _ = try await exchange(.iccPowerOff, slot: slot, timeout: configuration.readTimeout)
        let atr = try await powerOnSelectingVoltage(slot: slot)
        return exchangeLevel == .character ? try await completeCharacterATR(atr, slot: slot) : atr
    }

    /// PC_to_RDR_SetParameters. A refusal with the card present is not fatal, as in pcsc-lite:
    /// the reader keeps the parameters it has.
    private func setParameters(_ parameters: CCIDProtocolParameters, slot: UInt8) async throws {
        let response = try await exchange(
            .setParameters(parameters), slot: slot, timeout: configuration.readTimeout,
            failureIsError: false)
        guard let error = response.slotError else { return }
        if response.state.icc == .absent { throw CCIDDriverError.noCard }
        logger.debug(
            "SetParameters refused; continuing with the reader's parameters",
            metadata: [
                "error": "\(error)", "protocol": "T=\(parameters.protocolNumber)",
                "parameters": "\(parameters.bytes.map(hex2).joined(separator: " "))",
            ])
    }

    /// The reader's supported data rates (CCID GET_DATA_RATES), asked once; nil when it lists
    /// none (bNumDataRatesSupported 0) or the request fails, as pcsc-lite treats it.
    private func readerDataRates() async -> [UInt32]? {
        if let known = dataRateTable { return known }
        var rates: [UInt32]?
        let count = Int(descriptor.numDataRatesSupported)
        if count > 0 {
            do {
                let request = CCIDClassRequest.getDataRates(count: count).controlRequest(interface: interfaceNumber)
                let values = CCIDClassRequest.decodeValues(
                    try await transport.control(request, timeout: configuration.readTimeout)
                )
                .filter { $0 > 0 }
                rates = values.isEmpty ? nil : values
            } catch {
                logger.debug("GET_DATA_RATES failed; judging speeds by dwMaxDataRate", metadata: ["error": "\(error)"])
            }
        }
        dataRateTable = .some(rates)
        return rates
    }

    /// T=1 at TPDU or character level: the IFSD exchange unless the reader does it (dwFeatures 0x400).
    private func setUpT1Session(slot: UInt8, atr: AnswerToReset) async throws {
        let ifsd = Int(min(max(descriptor.maxIFSD, 1), 254))
        var t1 = T1HostProtocol(ifsc: atr.t1IFSC, ifsd: 32, checksum: atr.t1UsesCRC ? .crc : .lrc)
        if !descriptor.features.contains(.automaticIFSDExchange) {
            let negotiation = t1.beginIFSDNegotiation(ifsd: ifsd)
            _ = try await runT1(&t1, first: negotiation, slot: slot)
        }
        t1Sessions[slot] = t1
    }

    /// One command APDU over T=0: ``T0HostProtocol`` maps it to TPDUs (GET RESPONSE, re-issue,
    /// ENVELOPE as it decides); at TPDU level each TPDU goes in one XfrBlock, the reader handling
    /// the procedure bytes, at character level the driver runs them (``characterTPDU(_:slot:)``).
    func transmitT0(_ apdu: consuming [UInt8], slot: UInt8) async throws -> [UInt8] {
        var t0 = T0HostProtocol(limits: configuration.t0Limits)
        var action = t0.begin(command: consume apdu)
        // The state machine bounds the TPDUs of one command (ENVELOPE parts, GET RESPONSE
        // rounds, re-issues); this loop ends with it.
        while true {
            // Consumed: a TPDU taken out of it is held by nothing else, so it is framed in its
            // own storage; every branch that goes round again sets the next action.
            switch consume action {
            case .send(let tpdu) where exchangeLevel == .character:
                action = t0.receive(try await characterTPDU(tpdu, slot: slot))
            case .send(let tpdu):
                guard tpdu.count <= descriptor.maxPayloadPerMessage else {
                    throw CCIDDriverError.commandTooLong(length: tpdu.count, maximum: descriptor.maxPayloadPerMessage)
                }
                if logger.logLevel <= .trace {
                    logger.trace("T=0 TPDU >", metadata: ["tpdu": "\(tpdu.map(hex2).joined(separator: " "))"])
                }
                let answer = try await xfrBlock(consume tpdu, slot: slot, handingOver: true).data
                if logger.logLevel <= .trace {
                    logger.trace("T=0 TPDU <", metadata: ["answer": "\(answer.map(hex2).joined(separator: " "))"])
                }
                action = t0.receive(answer)
            case .completed(let response):
                return response
            case .failed(.envelopeRefused(let instruction, let statusWord)):
                throw CCIDDriverError.extendedLengthNeedsT1(instruction: instruction, statusWord: statusWord)
            case .failed(let error):
                throw CCIDDriverError.t0Failure(error)
            }
        }
    }
}
