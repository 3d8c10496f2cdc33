import CardFlowCCIDProtocol
import Testing

/// T0HostProtocol byte for byte: the ISO/IEC 7816-3 §12.2 case mapping, 61xx / 6Cxx and their bounds.
@Suite struct T0HostProtocolTests {
    private func data(_ count: Int, from start: UInt8 = 0) -> [UInt8] {
        (0..<count).map { UInt8(truncatingIfNeeded: Int(start) + $0) }
    }

    @Test func case1GoesOutWithP3Zero() {
        var t0 = T0HostProtocol()
        #expect(t0.begin(command: [0x00, 0xA4, 0x00, 0x0C]) == .send([0x00, 0xA4, 0x00, 0x0C, 0x00]))
        #expect(t0.receive([0x90, 0x00]) == .completed([0x90, 0x00]))
    }

    @Test func case2GoesOutWithLeAsP3() {
        var t0 = T0HostProtocol()
        #expect(t0.begin(command: [0x00, 0xB0, 0x00, 0x00, 0x10]) == .send([0x00, 0xB0, 0x00, 0x00, 0x10]))
        #expect(t0.receive(data(16) + [0x90, 0x00]) == .completed(data(16) + [0x90, 0x00]))
    }

    @Test func case2WithLe256GoesOutWithP3Zero() {
        var t0 = T0HostProtocol()
        #expect(t0.begin(command: [0x00, 0xB0, 0x00, 0x00, 0x00]) == .send([0x00, 0xB0, 0x00, 0x00, 0x00]))
        #expect(t0.receive(data(256) + [0x90, 0x00]) == .completed(data(256) + [0x90, 0x00]))
    }

    @Test func case3GoesOutWithLcAsP3AndA61xxAnswerIsReturnedAsIs() {
        var t0 = T0HostProtocol()
        let command: [UInt8] = [0x00, 0xD6, 0x00, 0x00, 0x02, 0xAA, 0xBB]
        #expect(t0.begin(command: command) == .send(command))
        #expect(t0.receive([0x90, 0x00]) == .completed([0x90, 0x00]))
        // No data expected: the card's offer of data is the caller's to follow.
        #expect(t0.begin(command: command) == .send(command))
        #expect(t0.receive([0x61, 0x10]) == .completed([0x61, 0x10]))
    }

    @Test func case4DropsLeThenFetchesWithGetResponse() {
        var t0 = T0HostProtocol()
        #expect(
            t0.begin(command: [0x00, 0xA4, 0x04, 0x00, 0x02, 0x3F, 0x00, 0x00])
                == .send([0x00, 0xA4, 0x04, 0x00, 0x02, 0x3F, 0x00]))
        #expect(t0.receive([0x61, 0x12]) == .send([0x00, 0xC0, 0x00, 0x00, 0x12]))
        #expect(t0.receive(data(0x12) + [0x90, 0x00]) == .completed(data(0x12) + [0x90, 0x00]))
    }

    @Test func case4GetResponseAsksAtMostNe() {
        var t0 = T0HostProtocol()
        #expect(
            t0.begin(command: [0x00, 0x88, 0x00, 0x00, 0x01, 0x55, 0x08])
                == .send([0x00, 0x88, 0x00, 0x00, 0x01, 0x55]))
        #expect(t0.receive([0x61, 0x20]) == .send([0x00, 0xC0, 0x00, 0x00, 0x08]))
        // Ne reached while the card still has data: its 61xx goes up with the data.
        #expect(t0.receive(data(8) + [0x61, 0x18]) == .completed(data(8) + [0x61, 0x18]))
    }

    @Test func extendedCommandsWithAtMost255DataBytesGoOutAsShortTPDUs() {
        // ISO/IEC 7816-3 §12.2: P3 = Nc (cases 3 and 4) or Ne coded on one byte (case 2); the
        // extended length fields go. The TPDU is made in the command's storage: check every
        // shape, including the one that shifts the data left.
        var t0 = T0HostProtocol()
        #expect(
            t0.begin(command: [0x00, 0xD6, 0x00, 0x00, 0x00, 0x00, 0x03, 0x0A, 0x0B, 0x0C])
                == .send([0x00, 0xD6, 0x00, 0x00, 0x03, 0x0A, 0x0B, 0x0C]))
        #expect(t0.receive([0x90, 0x00]) == .completed([0x90, 0x00]))
        #expect(
            t0.begin(command: [0x80, 0x2A, 0x9E, 0x9A, 0x00, 0x00, 0x02, 0x01, 0x02, 0x01, 0x00])
                == .send([0x80, 0x2A, 0x9E, 0x9A, 0x02, 0x01, 0x02]))
        #expect(t0.receive([0x61, 0x00]) == .send([0x00, 0xC0, 0x00, 0x00, 0x00]))
        #expect(t0.receive(data(256) + [0x90, 0x00]) == .completed(data(256) + [0x90, 0x00]))
        #expect(
            t0.begin(command: [0x00, 0xB0, 0x00, 0x00, 0x00, 0x00, 0x10])
                == .send([0x00, 0xB0, 0x00, 0x00, 0x10]))
        #expect(t0.receive(data(16) + [0x90, 0x00]) == .completed(data(16) + [0x90, 0x00]))
        let full = [0x00, 0xD6, 0x00, 0x00, 0x00, 0x00, 0xFF] + data(255)
        #expect(t0.begin(command: full) == .send([0x00, 0xD6, 0x00, 0x00, 0xFF] + data(255)))
        // The caller's own copy is not touched by the TPDU made from it.
        #expect(full.count == 262 && full[4...6] == [0x00, 0x00, 0xFF])
    }

    @Test func gatheredDataAndTheLastAnswerMakeTheResponse() {
        // 61xx with data, then 61xx without, then the rest: the three parts joined in order.
        var t0 = T0HostProtocol()
        #expect(t0.begin(command: [0x00, 0xB0, 0x00, 0x00, 0x30]) == .send([0x00, 0xB0, 0x00, 0x00, 0x30]))
        #expect(t0.receive(data(16) + [0x61, 0x20]) == .send([0x00, 0xC0, 0x00, 0x00, 0x20]))
        #expect(t0.receive([0x61, 0x20]) == .send([0x00, 0xC0, 0x00, 0x00, 0x20]))
        #expect(t0.receive(data(32, from: 16) + [0x62, 0x82]) == .completed(data(48) + [0x62, 0x82]))
        // The next command starts empty.
        #expect(t0.begin(command: [0x00, 0xB0, 0x00, 0x00, 0x02]) == .send([0x00, 0xB0, 0x00, 0x00, 0x02]))
        #expect(t0.receive([0x01, 0x02, 0x90, 0x00]) == .completed([0x01, 0x02, 0x90, 0x00]))
    }

    @Test func wrongLengthReissuesTheSameHeaderWithTheCardsP3() {
        var t0 = T0HostProtocol()
        #expect(t0.begin(command: [0x00, 0xB0, 0x00, 0x00, 0x00]) == .send([0x00, 0xB0, 0x00, 0x00, 0x00]))
        #expect(t0.receive([0x6C, 0x20]) == .send([0x00, 0xB0, 0x00, 0x00, 0x20]))
        #expect(t0.receive(data(32) + [0x62, 0x82]) == .completed(data(32) + [0x62, 0x82]))
    }

    @Test func case2AnsweredWith61xxChainsGetResponsesAndConcatenates() {
        var t0 = T0HostProtocol()
        #expect(t0.begin(command: [0x00, 0xB0, 0x00, 0x00, 0x20]) == .send([0x00, 0xB0, 0x00, 0x00, 0x20]))
        #expect(t0.receive(data(16) + [0x61, 0x10]) == .send([0x00, 0xC0, 0x00, 0x00, 0x10]))
        #expect(t0.receive(data(16, from: 16) + [0x90, 0x00]) == .completed(data(32) + [0x90, 0x00]))
    }

    @Test func getResponseKeepsChannelAndSecureMessagingBitsOfInterindustryClasses() {
        var t0 = T0HostProtocol()
        _ = t0.begin(command: [0x1D, 0xCA, 0x01, 0x00, 0x00])
        #expect(t0.receive([0x61, 0x04]) == .send([0x0D, 0xC0, 0x00, 0x00, 0x04]))
        _ = t0.begin(command: [0x80, 0xCA, 0x01, 0x00, 0x00])
        #expect(t0.receive([0x61, 0x04]) == .send([0x00, 0xC0, 0x00, 0x00, 0x04]))
        #expect(T0HostProtocol.getResponseClass(for: 0x45) == 0x45)
        #expect(T0HostProtocol.getResponseClass(for: 0x55) == 0x45)
    }

    @Test func extendedCase2FetchesBeyond256WithGetResponse() {
        var t0 = T0HostProtocol()
        #expect(
            t0.begin(command: [0x00, 0xB0, 0x00, 0x00, 0x00, 0x02, 0x00]) == .send([0x00, 0xB0, 0x00, 0x00, 0x00]))
        #expect(t0.receive(data(256) + [0x61, 0x00]) == .send([0x00, 0xC0, 0x00, 0x00, 0x00]))
        #expect(t0.receive(data(256, from: 0) + [0x90, 0x00]) == .completed(data(256) + data(256) + [0x90, 0x00]))
    }

    @Test func extendedCommandDataTravelsInChainedEnvelopes() {
        var t0 = T0HostProtocol()
        let payload = data(300)
        let command: [UInt8] = [0x00, 0xD6, 0x00, 0x00, 0x00, 0x01, 0x2C] + payload + [0x00, 0x00]
        #expect(t0.begin(command: command) == .send([0x10, 0xC2, 0x00, 0x00, 0xFF] + Array(command[0..<255])))
        #expect(t0.receive([0x90, 0x00]) == .send([0x00, 0xC2, 0x00, 0x00, 0x36] + Array(command[255...])))
        #expect(t0.receive([0x61, 0x02]) == .send([0x00, 0xC0, 0x00, 0x00, 0x02]))
        #expect(t0.receive([0x01, 0x02, 0x90, 0x00]) == .completed([0x01, 0x02, 0x90, 0x00]))
    }

    @Test(arguments: [UInt16(0x6D00), 0x6E00, 0x6884])
    func refusedEnvelopeIsTyped(statusWord: UInt16) {
        var t0 = T0HostProtocol()
        let command: [UInt8] = [0x00, 0xD6, 0x00, 0x00, 0x00, 0x01, 0x00] + data(256)
        _ = t0.begin(command: command)
        #expect(
            t0.receive([UInt8(statusWord >> 8), UInt8(statusWord & 0xFF)])
                == .failed(.envelopeRefused(instruction: 0xD6, statusWord: statusWord)))
    }

    @Test func endless6CxxIsBounded() {
        var t0 = T0HostProtocol()
        _ = t0.begin(command: [0x00, 0xB0, 0x00, 0x00, 0x10])
        #expect(t0.receive([0x6C, 0x08]) == .send([0x00, 0xB0, 0x00, 0x00, 0x08]))
        #expect(
            t0.receive([0x6C, 0x08]) == .failed(.leCorrectionsExceeded(limit: 1, instruction: 0xB0, statusWord: 0x6C08))
        )
    }

    @Test func endless61xxWithoutDataIsBounded() {
        var t0 = T0HostProtocol(limits: T0ExchangeLimits(maxGetResponseRounds: 3))
        _ = t0.begin(command: [0x00, 0xCA, 0x00, 0x00, 0x00])
        for _ in 0..<3 { #expect(t0.receive([0x61, 0x10]) == .send([0x00, 0xC0, 0x00, 0x00, 0x10])) }
        #expect(
            t0.receive([0x61, 0x10])
                == .failed(.getResponseRoundsExceeded(limit: 3, instruction: 0xCA, statusWord: 0x6110)))
        // The default bound also ends it, after 257 GET RESPONSE commands.
        var defaults = T0HostProtocol()
        _ = defaults.begin(command: [0x00, 0xCA, 0x00, 0x00, 0x00, 0x00, 0x00])
        var rounds = 0
        while case .send = defaults.receive([0x61, 0x10]) { rounds += 1 }
        #expect(rounds == 257)
    }

    @Test func malformedCommandsAndShortAnswersAreTyped() {
        var t0 = T0HostProtocol()
        #expect(t0.begin(command: [0x00, 0xA4]) == .failed(.malformedCommand(length: 2)))
        #expect(t0.begin(command: [0x00, 0xA4, 0x00, 0x00, 0x05, 0x01]) == .failed(.malformedCommand(length: 6)))
        _ = t0.begin(command: [0x00, 0xB0, 0x00, 0x00, 0x10])
        #expect(t0.receive([0x90]) == .failed(.answerTooShort(instruction: 0xB0, length: 1)))
    }
}
