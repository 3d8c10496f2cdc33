import CardFlowCCIDProtocol
import Testing

/// Host side driven by hand-written card blocks.
@Suite struct T1HostProtocolTests {
    private let select: [UInt8] = [0x00, 0xA4, 0x04, 0x00]
    private let okBlock0 = withLRC([0x00, 0x00, 0x02, 0x90, 0x00]) // I(0) 90 00
    private let okBlock1 = withLRC([0x00, 0x40, 0x02, 0x90, 0x00]) // I(1) 90 00
    private let garbage: [UInt8] = [0x00, 0x00, 0x02, 0x90, 0x00, 0x00] // bad LRC

    // MARK: Plain exchanges

    @Test func shortCommandAndResponse() {
        var host = T1HostProtocol()
        #expect(
            host.begin(command: select)
                == .send([0x00, 0x00, 0x04, 0x00, 0xA4, 0x04, 0x00, 0xA4], waitingTimeMultiplier: 1))
        #expect(host.isExchangeInProgress)
        #expect(host.receive(okBlock0) == .completed([0x90, 0x00]))
        #expect(!host.isExchangeInProgress)
        #expect(host.sendSequence == 1)
        #expect(host.receiveSequence == 1)

        // The second exchange uses N(S) = 1 and expects N(S) = 1 from the card.
        #expect(
            host.begin(command: [0x80, 0xCA])
                == .send(withLRC([0x00, 0x40, 0x02, 0x80, 0xCA]), waitingTimeMultiplier: 1))
        #expect(host.receive(okBlock1) == .completed([0x90, 0x00]))
        #expect(host.sendSequence == 0)
        #expect(host.receiveSequence == 0)
    }

    @Test func ifsdNegotiationUsesTheReferenceBytes() {
        var host = T1HostProtocol()
        #expect(
            host.beginIFSDNegotiation(ifsd: 254) == .send([0x00, 0xC1, 0x01, 0xFE, 0x3E], waitingTimeMultiplier: 1))
        #expect(host.receive([0x00, 0xE1, 0x01, 0xFE, 0x1E]) == .completed([]))
        #expect(host.ifsd == 254)
        // Sequence numbers are untouched by S-blocks.
        #expect(sentBlock(host.begin(command: select))?.prefix(2) == [0x00, 0x00])
    }

    @Test func ifsdNegotiationRetriesThenFails() {
        var host = T1HostProtocol()
        let request: [UInt8] = [0x00, 0xC1, 0x01, 0xFE, 0x3E]
        #expect(sentBlock(host.beginIFSDNegotiation(ifsd: 254)) == request)
        // A response with another value is not a confirmation: the request is resent (rule 7.3).
        #expect(sentBlock(host.receive(withLRC([0x00, 0xE1, 0x01, 0x20]))) == request)
        #expect(sentBlock(host.timeoutOccurred()) == request)
        #expect(host.receive(garbage) == .failed(.ifsdNegotiationFailed(requested: 0xFE)))
        #expect(host.requiresCardReset)
        #expect(host.ifsd == 32)
    }

    @Test func ifsdOutsideTheRangeIsRefused() {
        var host = T1HostProtocol()
        #expect(host.beginIFSDNegotiation(ifsd: 0) == .failed(.invalidInformationFieldSize(0)))
        #expect(host.beginIFSDNegotiation(ifsd: 255) == .failed(.invalidInformationFieldSize(255)))
        #expect(!host.requiresCardReset)
        #expect(!host.isExchangeInProgress)
    }

    // MARK: Chaining

    @Test func commandChainingByIFSC() {
        var host = T1HostProtocol(ifsc: 4)
        let command: [UInt8] = Array(1...10)
        #expect(sentBlock(host.begin(command: command)) == withLRC([0x00, 0x20, 0x04, 1, 2, 3, 4]))
        #expect(sentBlock(host.receive(withLRC([0x00, 0x90, 0x00]))) == withLRC([0x00, 0x60, 0x04, 5, 6, 7, 8]))
        #expect(sentBlock(host.receive(withLRC([0x00, 0x80, 0x00]))) == withLRC([0x00, 0x00, 0x02, 9, 10]))
        #expect(host.receive(withLRC([0x00, 0x00, 0x02, 0x90, 0x00])) == .completed([0x90, 0x00]))
        #expect(host.sendSequence == 1)
    }

    /// The storage of blocks the host does not keep (the card's R-blocks, later pieces of a
    /// response) comes back from takeFreedStorage(), once, for a driver to lend to the next
    /// read; the first piece of a response becomes the response and frees nothing.
    @Test func blocksNotKeptAreFreedForTheNextRead() {
        var host = T1HostProtocol(ifsc: 4)
        #expect(host.takeFreedStorage().capacity == 0)
        _ = host.begin(command: Array(1...10))
        let acknowledgement = withLRC([0x00, 0x90, 0x00])
        let acknowledgementAddress = address(of: acknowledgement)
        #expect(sentBlock(host.receive(acknowledgement)) == withLRC([0x00, 0x60, 0x04, 5, 6, 7, 8]))
        #expect(address(of: host.takeFreedStorage()) == acknowledgementAddress)
        #expect(host.takeFreedStorage().capacity == 0)
        #expect(sentBlock(host.receive(withLRC([0x00, 0x80, 0x00]))) == withLRC([0x00, 0x00, 0x02, 9, 10]))
        #expect(host.takeFreedStorage().count == 4)
        // The card's response in two pieces.
        #expect(sentBlock(host.receive(withLRC([0x00, 0x20, 0x01, 0xAA]))) == withLRC([0x00, 0x90, 0x00]))
        #expect(host.takeFreedStorage().capacity == 0)
        let last = withLRC([0x00, 0x40, 0x02, 0x90, 0x00])
        let lastAddress = address(of: last)
        #expect(host.receive(last) == .completed([0xAA, 0x90, 0x00]))
        #expect(address(of: host.takeFreedStorage()) == lastAddress)
    }

    private func address(of bytes: [UInt8]) -> UInt? {
        bytes.withUnsafeBufferPointer { $0.baseAddress.map { UInt(bitPattern: $0) } }
    }

    @Test func responseChainingIsAcknowledgedWithReceiveReady() {
        var host = T1HostProtocol()
        _ = host.begin(command: select)
        #expect(
            host.receive(withLRC([0x00, 0x20, 0x03, 0xAA, 0xBB, 0xCC]))
                == .send([0x00, 0x90, 0x00, 0x90], waitingTimeMultiplier: 1))
        #expect(
            host.receive(withLRC([0x00, 0x60, 0x01, 0xDD]))
                == .send([0x00, 0x80, 0x00, 0x80], waitingTimeMultiplier: 1))
        #expect(
            host.receive(withLRC([0x00, 0x00, 0x02, 0x90, 0x00])) == .completed([0xAA, 0xBB, 0xCC, 0xDD, 0x90, 0x00]))
    }

    @Test func cardMustNotAnswerAChainedBlockWithAnIBlock() {
        var host = T1HostProtocol(ifsc: 4)
        _ = host.begin(command: Array(1...10))
        #expect(sentBlock(host.receive(okBlock0)) == [0x00, 0x82, 0x00, 0x82])
    }

    @Test func acknowledgementOfAnUnchainedBlockIsInvalid() {
        var host = T1HostProtocol()
        _ = host.begin(command: select)
        // R(1) would acknowledge a chained block; ours was not chained.
        #expect(sentBlock(host.receive([0x00, 0x90, 0x00, 0x90])) == [0x00, 0x82, 0x00, 0x82])
    }

    @Test func informationFieldLargerThanIFSDIsInvalid() {
        var host = T1HostProtocol(ifsd: 2)
        _ = host.begin(command: select)
        #expect(sentBlock(host.receive(withLRC([0x00, 0x00, 0x03, 0x01, 0x90, 0x00]))) == [0x00, 0x82, 0x00, 0x82])
        #expect(host.receive(okBlock0) == .completed([0x90, 0x00]))
    }

    @Test func responseLimitEndsTheExchange() {
        var host = T1HostProtocol(maximumResponseLength: 4)
        _ = host.begin(command: select)
        #expect(sentBlock(host.receive(withLRC([0x00, 0x20, 0x03, 1, 2, 3]))) == [0x00, 0x90, 0x00, 0x90])
        #expect(host.receive(withLRC([0x00, 0x40, 0x02, 0x90, 0x00])) == .failed(.responseTooLong(limit: 4)))
        #expect(host.requiresCardReset)
    }

    // MARK: S-blocks from the card

    @Test func waitingTimeExtensionIsEchoedWithItsMultiplier() {
        var host = T1HostProtocol()
        _ = host.begin(command: select)
        #expect(
            host.receive([0x00, 0xC3, 0x01, 0x09, 0xCB])
                == .send([0x00, 0xE3, 0x01, 0x09, 0xEB], waitingTimeMultiplier: 9))
        // The multiplier applies to that one wait only.
        #expect(host.receive(garbage) == .send([0x00, 0x81, 0x00, 0x81], waitingTimeMultiplier: 1))
        #expect(host.receive(okBlock0) == .completed([0x90, 0x00]))
    }

    @Test func waitingTimeExtensionOfZeroWaitsAtLeastOnce() {
        var host = T1HostProtocol()
        _ = host.begin(command: select)
        #expect(
            host.receive(withLRC([0x00, 0xC3, 0x01, 0x00]))
                == .send(withLRC([0x00, 0xE3, 0x01, 0x00]), waitingTimeMultiplier: 1))
    }

    @Test func cardChangesIFSC() {
        var host = T1HostProtocol(ifsc: 4)
        #expect(sentBlock(host.begin(command: Array(1...10))) == withLRC([0x00, 0x20, 0x04, 1, 2, 3, 4]))
        #expect(sentBlock(host.receive(withLRC([0x00, 0xC1, 0x01, 0x05]))) == withLRC([0x00, 0xE1, 0x01, 0x05]))
        #expect(host.ifsc == 5)
        // The next chunk uses the new size.
        #expect(sentBlock(host.receive(withLRC([0x00, 0x90, 0x00]))) == withLRC([0x00, 0x60, 0x05, 5, 6, 7, 8, 9]))
        #expect(sentBlock(host.receive(withLRC([0x00, 0x80, 0x00]))) == withLRC([0x00, 0x00, 0x01, 10]))
        // reset() restores the IFSC from the ATR.
        host.reset()
        #expect(host.ifsc == 4)
    }

    @Test func invalidIFSRequestsAreRejected() {
        for request in [
            withLRC([0x00, 0xC1, 0x01, 0x00]), withLRC([0x00, 0xC1, 0x01, 0xFF]),
            withLRC([0x00, 0xC1, 0x02, 0x20, 0x20]), withLRC([0x00, 0xC1, 0x00]),
        ] {
            var host = T1HostProtocol()
            _ = host.begin(command: select)
            #expect(sentBlock(host.receive(request)) == [0x00, 0x82, 0x00, 0x82])
            #expect(host.ifsc == 32)
        }
    }

    @Test func cardAbortIsFatal() {
        var host = T1HostProtocol()
        _ = host.begin(command: select)
        #expect(host.receive([0x00, 0xC2, 0x00, 0xC2]) == .failed(.cardAborted))
        #expect(host.requiresCardReset)
        #expect(host.begin(command: select) == .failed(.cardResetRequired))
        #expect(host.receive(okBlock0) == .failed(.cardResetRequired))
        host.reset()
        #expect(!host.requiresCardReset)
        #expect(sentBlock(host.begin(command: select))?.prefix(2) == [0x00, 0x00])
    }

    @Test func cardResynchRequestIsFatal() {
        var host = T1HostProtocol()
        _ = host.begin(command: select)
        #expect(host.receive([0x00, 0xC0, 0x00, 0xC0]) == .failed(.cardRequestedResynchronisation))
        #expect(T1Error.cardRequestedResynchronisation.requiresCardReset)
    }

    @Test func unexpectedSupervisoryResponsesAndVPPErrorsAreInvalid() {
        for block in [[0x00, 0xE0, 0x00, 0xE0], [0x00, 0xE3, 0x01, 0x01, 0xE3], [0x00, 0xC4, 0x00, 0xC4]] as [[UInt8]] {
            var host = T1HostProtocol()
            _ = host.begin(command: select)
            #expect(sentBlock(host.receive(block)) == [0x00, 0x82, 0x00, 0x82])
        }
    }

    // MARK: Error recovery

    @Test func badChecksumAsksForTheBlockAgain() {
        var host = T1HostProtocol()
        _ = host.begin(command: select)
        #expect(sentBlock(host.receive(garbage)) == [0x00, 0x81, 0x00, 0x81])
        #expect(host.receive(okBlock0) == .completed([0x90, 0x00]))
    }

    @Test func framingErrorsAskForTheBlockAgainWithOtherError() {
        let malformed: [[UInt8]] = [
            [0x00, 0x00], // too short
            withLRC([0x00, 0x00, 0xFF]), // LEN 0xFF
            withLRC([0x00, 0x00, 0x03, 0x90, 0x00]), // LEN mismatch
            withLRC([0x00, 0x85, 0x00]), // undefined PCB
            withLRC([0x00, 0x80, 0x01, 0x00]), // R-block with INF
        ]
        for block in malformed {
            var host = T1HostProtocol()
            _ = host.begin(command: select)
            #expect(sentBlock(host.receive(block)) == [0x00, 0x82, 0x00, 0x82])
        }
    }

    @Test func timeoutAsksForTheBlockAgain() {
        var host = T1HostProtocol()
        _ = host.begin(command: select)
        #expect(host.timeoutOccurred() == .send([0x00, 0x82, 0x00, 0x82], waitingTimeMultiplier: 1))
        #expect(host.receive(okBlock0) == .completed([0x90, 0x00]))
    }

    @Test func retransmissionRequestResendsTheIBlock() {
        var host = T1HostProtocol()
        let first = sentBlock(host.begin(command: select))
        // R(0) names the I-block in flight (N(S) = 0): the card did not get it.
        #expect(sentBlock(host.receive([0x00, 0x81, 0x00, 0x81])) == first)
        #expect(sentBlock(host.receive([0x00, 0x80, 0x00, 0x80])) == first)
        #expect(host.receive(okBlock0) == .completed([0x90, 0x00]))
    }

    @Test func lastReceiveReadyIsResentVerbatim() {
        var host = T1HostProtocol()
        _ = host.begin(command: select)
        #expect(sentBlock(host.receive(withLRC([0x00, 0x20, 0x01, 0xAA]))) == [0x00, 0x90, 0x00, 0x90])
        // Rule 7.2: our last block was an R-block, so it goes again as it was.
        #expect(sentBlock(host.receive(garbage)) == [0x00, 0x90, 0x00, 0x90])
        #expect(sentBlock(host.timeoutOccurred()) == [0x00, 0x90, 0x00, 0x90])
        // Third consecutive failure: resynchronisation.
        #expect(sentBlock(host.receive(garbage)) == [0x00, 0xC0, 0x00, 0xC0])
    }

    @Test func errorReceiveReadyIsResentVerbatim() {
        var host = T1HostProtocol()
        _ = host.begin(command: select)
        #expect(sentBlock(host.receive(garbage)) == [0x00, 0x81, 0x00, 0x81])
        #expect(sentBlock(host.timeoutOccurred()) == [0x00, 0x81, 0x00, 0x81])
    }

    @Test func cardReceiveReadyWhileReceivingResendsOurs() {
        var host = T1HostProtocol()
        _ = host.begin(command: select)
        #expect(sentBlock(host.receive(withLRC([0x00, 0x20, 0x01, 0xAA]))) == [0x00, 0x90, 0x00, 0x90])
        #expect(sentBlock(host.receive([0x00, 0x80, 0x00, 0x80])) == [0x00, 0x90, 0x00, 0x90])
        #expect(host.receive(withLRC([0x00, 0x40, 0x02, 0x90, 0x00])) == .completed([0xAA, 0x90, 0x00]))
    }

    @Test func wrongSequenceNumberFromCardIsInvalid() {
        var host = T1HostProtocol()
        _ = host.begin(command: select)
        #expect(sentBlock(host.receive(okBlock1)) == [0x00, 0x82, 0x00, 0x82])
        #expect(host.receive(okBlock0) == .completed([0x90, 0x00]))
    }

    @Test func thirdConsecutiveFailureResynchronisesAndRestartsTheCommand() {
        var host = T1HostProtocol(ifsc: 4)
        let command: [UInt8] = Array(1...6)
        let first = sentBlock(host.begin(command: command))
        #expect(first == withLRC([0x00, 0x20, 0x04, 1, 2, 3, 4]))
        // The first chunk is acknowledged, so the restart must really go back to byte 0.
        #expect(sentBlock(host.receive(withLRC([0x00, 0x90, 0x00]))) == withLRC([0x00, 0x40, 0x02, 5, 6]))
        #expect(sentBlock(host.receive(garbage)) == [0x00, 0x81, 0x00, 0x81])
        #expect(sentBlock(host.receive(garbage)) == [0x00, 0x81, 0x00, 0x81])
        #expect(host.receive(garbage) == .send([0x00, 0xC0, 0x00, 0xC0], waitingTimeMultiplier: 1))
        #expect(host.receive([0x00, 0xE0, 0x00, 0xE0]) == .send(first!, waitingTimeMultiplier: 1))
        #expect(host.sendSequence == 0)
        #expect(sentBlock(host.receive(withLRC([0x00, 0x90, 0x00]))) == withLRC([0x00, 0x40, 0x02, 5, 6]))
        #expect(host.receive(okBlock0) == .completed([0x90, 0x00]))
    }

    @Test func repeatedRetransmissionRequestsLeadToResynchronisation() {
        var host = T1HostProtocol()
        let first = sentBlock(host.begin(command: select))
        #expect(sentBlock(host.receive([0x00, 0x80, 0x00, 0x80])) == first)
        #expect(sentBlock(host.receive([0x00, 0x80, 0x00, 0x80])) == first)
        #expect(sentBlock(host.receive([0x00, 0x80, 0x00, 0x80])) == [0x00, 0xC0, 0x00, 0xC0])
    }

    @Test func resynchronisationLimitFailsTheExchange() {
        var host = T1HostProtocol()
        _ = host.begin(command: select)
        var sent: [[UInt8]] = []
        var action = host.receive(garbage)
        while let block = sentBlock(action), sent.count < 20 {
            sent.append(block)
            action = host.receive(garbage)
        }
        // R(err), R(err) again, then three S(RESYNCH request) that all go unanswered.
        #expect(
            sent == [
                [0x00, 0x81, 0x00, 0x81], [0x00, 0x81, 0x00, 0x81],
                [0x00, 0xC0, 0x00, 0xC0], [0x00, 0xC0, 0x00, 0xC0], [0x00, 0xC0, 0x00, 0xC0],
            ])
        #expect(action == .failed(.resynchronisationFailed(attempts: 3)))
        #expect(host.requiresCardReset)
    }

    @Test func successfulResynchronisationsStillCountTowardsTheLimit() {
        var host = T1HostProtocol()
        _ = host.begin(command: select)
        for _ in 0..<3 {
            _ = host.receive(garbage)
            _ = host.receive(garbage)
            #expect(sentBlock(host.receive(garbage)) == [0x00, 0xC0, 0x00, 0xC0])
            #expect(sentBlock(host.receive([0x00, 0xE0, 0x00, 0xE0]))?.prefix(2) == [0x00, 0x00])
        }
        _ = host.receive(garbage)
        _ = host.receive(garbage)
        #expect(host.receive(garbage) == .failed(.resynchronisationFailed(attempts: 3)))
    }

    // MARK: Node addresses

    @Test func nodeAddressIsSentAndExpectedSwapped() {
        var host = T1HostProtocol(nodeAddress: 0x12)
        #expect(sentBlock(host.begin(command: select))?.first == 0x12)
        // A block addressed like ours (not swapped) is invalid.
        #expect(sentBlock(host.receive(withLRC([0x12, 0x00, 0x02, 0x90, 0x00]))) == withLRC([0x12, 0x82, 0x00]))
        #expect(host.receive(withLRC([0x21, 0x00, 0x02, 0x90, 0x00])) == .completed([0x90, 0x00]))
    }

    @Test func nonZeroNodeAddressFromCardIsInvalidWhenWeUseZero() {
        var host = T1HostProtocol()
        _ = host.begin(command: select)
        #expect(sentBlock(host.receive(withLRC([0x10, 0x00, 0x02, 0x90, 0x00]))) == [0x00, 0x82, 0x00, 0x82])
    }

    // MARK: Misuse

    @Test func misuseIsRefusedWithoutChangingState() {
        var host = T1HostProtocol()
        #expect(host.receive(okBlock0) == .failed(.noExchangeInProgress))
        #expect(host.timeoutOccurred() == .failed(.noExchangeInProgress))
        #expect(host.begin(command: []) == .failed(.emptyCommand))
        _ = host.begin(command: select)
        #expect(host.begin(command: select) == .failed(.exchangeInProgress))
        #expect(host.beginIFSDNegotiation(ifsd: 254) == .failed(.exchangeInProgress))
        #expect(!host.requiresCardReset)
        #expect(host.receive(okBlock0) == .completed([0x90, 0x00]))
    }

    @Test func configurationIsClamped() {
        let host = T1HostProtocol(ifsc: 0xFF, ifsd: 0)
        #expect(host.ifsc == 254)
        #expect(host.ifsd == 1)
    }

    @Test func resetRestoresThePowerOnState() {
        var host = T1HostProtocol()
        _ = host.begin(command: select)
        _ = host.receive(okBlock0)
        _ = host.beginIFSDNegotiation(ifsd: 200)
        _ = host.receive(withLRC([0x00, 0xE1, 0x01, 200]))
        #expect(host.ifsd == 200)
        host.reset()
        #expect(host.ifsd == 32)
        #expect(host.sendSequence == 0)
        #expect(host.receiveSequence == 0)
    }
}

/// Resynchronisation asked for by the caller (after an abandoned exchange).
@Suite struct T1HostResynchronisationTests {
    @Test func resynchronisationOnRequestCompletesAndResetsSequenceNumbers() {
        var host = T1HostProtocol()
        _ = host.begin(command: [0x00, 0xA4, 0x04, 0x00])
        _ = host.receive(withLRC([0x00, 0x00, 0x02, 0x90, 0x00]))
        #expect(host.sendSequence == 1)
        // Abandon the next exchange half-way.
        _ = host.begin(command: [0x00, 0xB0, 0x00, 0x00])
        #expect(host.beginResynchronisation() == .send([0x00, 0xC0, 0x00, 0xC0], waitingTimeMultiplier: 1))
        // Sequence numbers change only once the card confirms.
        #expect(host.sendSequence == 1)
        #expect(host.receive([0x00, 0xE0, 0x00, 0xE0]) == .completed([]))
        #expect(host.sendSequence == 0)
        #expect(host.receiveSequence == 0)
        #expect(sentBlock(host.begin(command: [0x00, 0xB0, 0x00, 0x00]))?.prefix(2) == [0x00, 0x00])
    }

    @Test func resynchronisationOnRequestRecoversFromAHaltedState() {
        var host = T1HostProtocol()
        _ = host.begin(command: [0x00, 0xA4, 0x04, 0x00])
        #expect(host.receive([0x00, 0xC2, 0x00, 0xC2]) == .failed(.cardAborted))
        #expect(sentBlock(host.beginResynchronisation()) == [0x00, 0xC0, 0x00, 0xC0])
        #expect(host.receive([0x00, 0xE0, 0x00, 0xE0]) == .completed([]))
        #expect(!host.requiresCardReset)
    }

    @Test func unansweredResynchronisationOnRequestFails() {
        var host = T1HostProtocol()
        #expect(sentBlock(host.beginResynchronisation()) == [0x00, 0xC0, 0x00, 0xC0])
        #expect(sentBlock(host.timeoutOccurred()) == [0x00, 0xC0, 0x00, 0xC0])
        #expect(sentBlock(host.receive([0x00, 0x80, 0x00, 0x80])) == [0x00, 0xC0, 0x00, 0xC0])
        #expect(host.timeoutOccurred() == .failed(.resynchronisationFailed(attempts: 3)))
        #expect(host.requiresCardReset)
    }
}
