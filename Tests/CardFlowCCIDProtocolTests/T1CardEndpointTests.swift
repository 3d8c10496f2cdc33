import CardFlowCCIDProtocol
import CardFlowSimulator
import Testing

/// The simulator's card half, driven by hand-written host blocks.
@Suite struct T1CardEndpointTests {
    private let select = withLRC([0x00, 0x00, 0x04, 0x00, 0xA4, 0x04, 0x00]) // I(0) SELECT

    @Test func answersIFSRequestAndUsesTheNewIFSD() {
        var card = T1CardEndpoint()
        #expect(card.receive([0x00, 0xC1, 0x01, 0xFE, 0x3E]) == .send([0x00, 0xE1, 0x01, 0xFE, 0x1E]))
        #expect(card.ifsd == 254)
        #expect(card.receive(withLRC([0x00, 0xC1, 0x01, 0x00])) == .send([0x00, 0x82, 0x00, 0x82]))
        #expect(card.ifsd == 254)
    }

    @Test func waitingTimeExtensionBeforeTheAnswer() {
        var card = T1CardEndpoint()
        #expect(card.receive(select) == .commandComplete([0x00, 0xA4, 0x04, 0x00]))
        #expect(card.requestWaitingTimeExtension(multiplier: 9) == [0x00, 0xC3, 0x01, 0x09, 0xCB])
        // Anything but the matching response makes the card repeat its request (rule 7.3).
        #expect(card.receive(withLRC([0x00, 0xE3, 0x01, 0x08])) == .send([0x00, 0xC3, 0x01, 0x09, 0xCB]))
        #expect(card.receive([0x00, 0x80, 0x00, 0x80]) == .send([0x00, 0xC3, 0x01, 0x09, 0xCB]))
        #expect(card.receive([0x00, 0xE3, 0x01, 0x09, 0xEB]) == .waitingTimeExtensionGranted(multiplier: 9))
        #expect(card.respond(with: [0x90, 0x00]) == withLRC([0x00, 0x00, 0x02, 0x90, 0x00]))
    }

    @Test func acknowledgesChainedCommandBlocks() {
        var card = T1CardEndpoint(ifsc: 4)
        #expect(card.receive(withLRC([0x00, 0x20, 0x04, 1, 2, 3, 4])) == .send([0x00, 0x90, 0x00, 0x90]))
        #expect(card.receive(withLRC([0x00, 0x60, 0x04, 5, 6, 7, 8])) == .send([0x00, 0x80, 0x00, 0x80]))
        #expect(card.receive(withLRC([0x00, 0x00, 0x02, 9, 10])) == .commandComplete(Array(1...10)))
        #expect(card.expectedSequence == 1)
    }

    @Test func rejectsBlocksLargerThanItsIFSC() {
        var card = T1CardEndpoint(ifsc: 4)
        #expect(card.receive(withLRC([0x00, 0x00, 0x05, 1, 2, 3, 4, 5])) == .send([0x00, 0x82, 0x00, 0x82]))
    }

    @Test func checksumErrorsAndRule7Point2() {
        var card = T1CardEndpoint(ifsc: 4)
        #expect(card.receive([0x00, 0x00, 0x01, 0x01, 0x55]) == .send([0x00, 0x81, 0x00, 0x81]))
        #expect(card.receive(withLRC([0x00, 0x20, 0x04, 1, 2, 3, 4])) == .send([0x00, 0x90, 0x00, 0x90]))
        // After an R-block the card repeats it on any invalid block.
        #expect(card.receive([0x00, 0x40, 0x01, 0x05, 0x00]) == .send([0x00, 0x90, 0x00, 0x90]))
        #expect(card.receive(withLRC([0x00, 0x40, 0x01, 5])) == .commandComplete([1, 2, 3, 4, 5]))
    }

    @Test func wrongSequenceNumberIsAnError() {
        var card = T1CardEndpoint()
        #expect(card.receive(withLRC([0x00, 0x40, 0x01, 0x00])) == .send([0x00, 0x82, 0x00, 0x82]))
    }

    @Test func chainsTheResponseByIFSDAndResendsOnRequest() {
        var card = T1CardEndpoint()
        _ = card.receive([0x00, 0xC1, 0x01, 0x02, 0xC2]) // IFSD 2
        _ = card.receive(select)
        #expect(card.respond(with: [0xAA, 0xBB, 0x90, 0x00, 0x01]) == withLRC([0x00, 0x20, 0x02, 0xAA, 0xBB]))
        // R(0) names the block just sent: resend it.
        #expect(card.receive([0x00, 0x80, 0x00, 0x80]) == .send(withLRC([0x00, 0x20, 0x02, 0xAA, 0xBB])))
        #expect(card.receive([0x00, 0x90, 0x00, 0x90]) == .send(withLRC([0x00, 0x60, 0x02, 0x90, 0x00])))
        #expect(card.receive([0x00, 0x80, 0x00, 0x80]) == .send(withLRC([0x00, 0x00, 0x01, 0x01])))
        // The host may still ask for the last block until it sends its next command.
        #expect(card.receive([0x00, 0x82, 0x00, 0x82]) == .send(withLRC([0x00, 0x00, 0x01, 0x01])))
        #expect(card.receive(withLRC([0x00, 0x40, 0x01, 0x00])) == .commandComplete([0x00]))
        #expect(card.sendSequence == 1)
    }

    @Test func resynchronisationResetsSequenceNumbers() {
        var card = T1CardEndpoint()
        _ = card.receive(select)
        _ = card.respond(with: [0x90, 0x00])
        #expect(card.sendSequence == 1)
        #expect(card.receive([0x00, 0xC0, 0x00, 0xC0]) == .send([0x00, 0xE0, 0x00, 0xE0]))
        #expect(card.sendSequence == 0)
        #expect(card.expectedSequence == 0)
        #expect(card.receive(select) == .commandComplete([0x00, 0xA4, 0x04, 0x00]))
    }

    @Test func hostMayNotSendWaitingTimeExtensionRequests() {
        var card = T1CardEndpoint()
        #expect(card.receive([0x00, 0xC3, 0x01, 0x09, 0xCB]) == .send([0x00, 0x82, 0x00, 0x82]))
    }

    @Test func corruptedChecksumOnlyOnTheNextBlock() {
        var card = T1CardEndpoint()
        card.corruptNextBlockChecksum()
        _ = card.receive(select)
        let clean = withLRC([0x00, 0x00, 0x02, 0x90, 0x00])
        let sent = card.respond(with: [0x90, 0x00])
        #expect(sent.dropLast() == clean.dropLast())
        #expect(sent.last != clean.last)
        #expect(card.corruptedBlocksRemaining == 0)
        // The retransmission is clean.
        #expect(card.receive([0x00, 0x81, 0x00, 0x81]) == .send(clean))
    }

    @Test func scheduledIFSRequestPrecedesTheNextBlock() {
        var card = T1CardEndpoint(ifsc: 4)
        card.scheduleInformationFieldSizeRequest(16)
        #expect(card.receive(withLRC([0x00, 0x20, 0x04, 1, 2, 3, 4])) == .send(withLRC([0x00, 0xC1, 0x01, 0x10])))
        #expect(card.ifsc == 4)
        #expect(card.receive(withLRC([0x00, 0xE1, 0x01, 0x10])) == .send([0x00, 0x90, 0x00, 0x90]))
        #expect(card.ifsc == 16)
        #expect(card.receive(withLRC([0x00, 0x40, 0x06, 5, 6, 7, 8, 9, 10])) == .commandComplete(Array(1...10)))
    }

    @Test func answersWithTheSwappedNodeAddress() {
        var card = T1CardEndpoint(hostNodeAddress: 0x12)
        #expect(card.receive(withLRC([0x12, 0xC1, 0x01, 0x40])) == .send(withLRC([0x21, 0xE1, 0x01, 0x40])))
        #expect(card.receive(withLRC([0x00, 0xC1, 0x01, 0x40])) == .send(withLRC([0x21, 0x82, 0x00])))
    }

    @Test func crcAgreesWithTheHostCodec() throws {
        var card = T1CardEndpoint(checksum: .crc)
        let request = try T1Block(kind: .supervisory(.ifs, isResponse: false), information: [0xFE]).encoded(
            checksum: .crc)
        let expected = try T1Block(kind: .supervisory(.ifs, isResponse: true), information: [0xFE]).encoded(
            checksum: .crc)
        #expect(card.receive(request) == .send(expected))
        // An LRC-framed block is not valid for a CRC card.
        #expect(card.receive([0x00, 0xC1, 0x01, 0xFE, 0x3E]) != .send(expected))
    }

    /// The simulated reader hands the card each block where it lies, behind the bulk-OUT
    /// message's 10-byte header: a slice whose indices start at 10. A whole conversation (IFS,
    /// a chained command, a chained answer with a resend, CRC and LRC cards) gives the same
    /// events as with the blocks on their own.
    @Test(arguments: [T1Checksum.lrc, .crc])
    func blocksReadInsideAMessageGiveTheSameEvents(_ checksum: T1Checksum) throws {
        func block(_ kind: T1BlockKind, _ information: [UInt8] = []) throws -> [UInt8] {
            try T1Block(kind: kind, information: information).encoded(checksum: checksum)
        }
        let conversation = [
            try block(.supervisory(.ifs, isResponse: false), [0x03]),
            try block(.information(sendSequence: 0, more: true), [1, 2, 3, 4]),
            [0x00, 0x00, 0x01, 0x01, 0x55], // invalid: answered by the last R-block
            try block(.information(sendSequence: 1, more: false), [5, 6]),
            try block(.receiveReady(sequence: 0, error: .none)), // "send that block again"
            try block(.receiveReady(sequence: 1, error: .none)),
            try block(.receiveReady(sequence: 0, error: .none)),
            try block(.information(sendSequence: 0, more: false), [7]),
        ]
        var alone = T1CardEndpoint(ifsc: 4, checksum: checksum)
        var inMessage = T1CardEndpoint(ifsc: 4, checksum: checksum)
        var events: [T1CardEvent] = []
        for bytes in conversation {
            let message = [UInt8](repeating: 0xEE, count: 10) + bytes
            let event = alone.receive(bytes)
            #expect(inMessage.receive(message[10...]) == event)
            events.append(event)
            if case .commandComplete = event {
                let first = alone.respond(with: [0xAA, 0xBB, 0xCC, 0x90, 0x00])
                #expect(inMessage.respond(with: [0xAA, 0xBB, 0xCC, 0x90, 0x00]) == first)
                events.append(.send(first))
            }
        }
        // Every block and command handed out is still what it was when the card gave it: the
        // card writes later blocks and commands into storage it keeps, never into these.
        #expect(events.contains(.commandComplete([1, 2, 3, 4, 5, 6])))
        #expect(events.contains(.commandComplete([7])))
        #expect(events.contains(.send(try block(.information(sendSequence: 0, more: true), [0xAA, 0xBB, 0xCC]))))
        #expect(events.contains(.send(try block(.information(sendSequence: 1, more: false), [0x90, 0x00]))))
        let acknowledgement = T1CardEvent.send(try block(.receiveReady(sequence: 1, error: .none)))
        #expect(events.filter { $0 == acknowledgement }.count == 2)
    }

    @Test func resetRestoresThePowerOnState() {
        var card = T1CardEndpoint(ifsc: 100, initialIFSD: 40)
        _ = card.receive([0x00, 0xC1, 0x01, 0xFE, 0x3E])
        _ = card.receive(select)
        _ = card.respond(with: [0x90, 0x00])
        card.corruptChecksumOfNextBlocks(5)
        card.reset()
        #expect(card.ifsd == 40)
        #expect(card.ifsc == 100)
        #expect(card.sendSequence == 0)
        #expect(card.expectedSequence == 0)
        #expect(card.corruptedBlocksRemaining == 0)
    }
}
