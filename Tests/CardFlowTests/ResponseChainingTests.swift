import Testing

@testable import CardFlow

@Suite struct ResponseChainingTests {
    private func response(_ hex: String) -> ResponseAPDU {
        do { return try ResponseAPDU(hex: hex) } catch { fatalError("bad test vector: \(error)") }
    }

    private func pattern(_ count: Int, startingAt start: Int = 0) -> [UInt8] {
        (0..<count).map { UInt8(truncatingIfNeeded: start + $0) }
    }

    @Test func passesAFinalAnswerThrough() async throws {
        let card = ScriptedCardChannel([response("6F01 9000")])
        let select = try CommandAPDU(hex: "00A40400 07 A0000002471001 00")

        let answer = try await card.send(select)

        #expect(answer == response("6F01 9000"))
        #expect(await card.sent == [select])
    }

    @Test func returnsErrorStatusWithoutThrowing() async throws {
        let card = ScriptedCardChannel([response("6A82")])
        let answer = try await card.send(try CommandAPDU(hex: "00A40400 02 3F00"))
        #expect(answer.statusWord == .fileNotFound)
    }

    @Test func followsRepeated61xxWithGetResponseAndConcatenatesData() async throws {
        let first = pattern(4)
        let second = pattern(16, startingAt: 4)
        let third = pattern(256, startingAt: 20)
        let card = ScriptedCardChannel([
            ResponseAPDU(data: first, statusWord: StatusWord(0x6110)),
            ResponseAPDU(data: second, statusWord: StatusWord(0x6100)),
            ResponseAPDU(data: third, statusWord: .success),
        ])
        let getData = try CommandAPDU(hex: "00CB3FFF 05 5C035FC105 00")

        let answer = try await card.send(getData)

        #expect(answer.data == first + second + third)
        #expect(answer.statusWord == .success)
        // GET RESPONSE asks for exactly the announced count; 6100 means 256, written as Le 00.
        #expect(await card.sentHex == ["00CB3FFF055C035FC10500", "00C0000010", "00C0000000"])
    }

    @Test(
        arguments: [
            (0x00, 0x00), (0x01, 0x01), (0x0C, 0x0C), (0x0F, 0x0F),
            (0x10, 0x00), (0x13, 0x03), (0x1E, 0x0E), // chaining bit b5 cleared, SM and channel kept
            (0x40, 0x40), (0x65, 0x65), (0x7F, 0x6F), (0x53, 0x43), // further interindustry: b5 is chaining
            (0x20, 0x00), (0x3F, 0x00), // reserved for future use
            (0x80, 0x00), (0x84, 0x00), (0x90, 0x00), (0xFF, 0x00), // proprietary
        ] as [(UInt8, UInt8)])
    func getResponseClassKeepsInterindustryBitsOnly(commandCLA: UInt8, expectedCLA: UInt8) async throws {
        let card = ScriptedCardChannel([response("6102"), response("AABB 9000")])
        let command = try CommandAPDU(cla: commandCLA, ins: 0xCA, p1: 0x00, p2: 0x6E, le: 256)

        let answer = try await card.send(command)

        #expect(answer == response("AABB 9000"))
        let sent = await card.sent
        #expect(sent.count == 2)
        #expect(sent.last?.encoded() == [expectedCLA, 0xC0, 0x00, 0x00, 0x02])
    }

    @Test func resendsWithCorrectedLeOn6Cxx() async throws {
        let card = ScriptedCardChannel([response("6C10"), ResponseAPDU(data: pattern(16), statusWord: .success)])
        let readBinary = try CommandAPDU(cla: 0x00, ins: 0xB0, p1: 0x00, p2: 0x00, le: 256)

        let answer = try await card.send(readBinary)

        #expect(answer.data == pattern(16))
        #expect(await card.sentHex == ["00B0000000", "00B0000010"])
    }

    @Test func correctedLeKeepsDataAndUsesExtendedFormWhenDataNeedsIt() async throws {
        let data = pattern(300)
        let card = ScriptedCardChannel([response("6C00"), response("01 9000")])
        let command = try CommandAPDU(cla: 0x00, ins: 0x2A, p1: 0x9E, p2: 0x9A, data: data)

        _ = try await card.send(command)

        let sent = await card.sent
        #expect(sent.count == 2)
        // Case 3E becomes 4E; Le 256 in extended form is 0100.
        #expect(sent.last?.encoded() == [0x00, 0x2A, 0x9E, 0x9A, 0x00, 0x01, 0x2C] + data + [0x01, 0x00])
    }

    @Test func handles6CxxFollowedBy61xx() async throws {
        let card = ScriptedCardChannel([response("6C05"), response("0102 6103"), response("030405 9000")])
        let command = try CommandAPDU(cla: 0x00, ins: 0xCA, p1: 0x01, p2: 0x02, le: 1)

        let answer = try await card.send(command)

        #expect(answer == response("0102030405 9000"))
        #expect(await card.sentHex == ["00CA010201", "00CA010205", "00C0000003"])
    }

    @Test func stopsWhenTheCardAnswers6CxxTwice() async throws {
        let card = ScriptedCardChannel([response("6C10"), response("6C08")], thenAlways: response("9000"))
        let readBinary = try CommandAPDU(cla: 0x00, ins: 0xB0, p1: 0x00, p2: 0x00, le: 256)

        await #expect(
            throws: APDUExchangeError(
                reason: .leCorrectionsExceeded(limit: 1), command: readBinary, statusWord: StatusWord(0x6C08))
        ) {
            try await card.send(readBinary)
        }
        #expect(await card.sentHex == ["00B0000000", "00B0000010"])
    }

    @Test func stopsAnEndless61xxAtTheRoundLimit() async throws {
        let card = ScriptedCardChannel([], thenAlways: response("AA 6101"))
        let command = try CommandAPDU(cla: 0x00, ins: 0xCA, p1: 0x00, p2: 0x6E, le: 256)

        let expected = APDUExchangeError(
            reason: .getResponseRoundsExceeded(limit: 32), command: command, statusWord: StatusWord(0x6101))
        await #expect(throws: expected) { try await card.send(command) }

        let sent = await card.sent
        #expect(sent.count == 1 + 32)
        #expect(sent.dropFirst().allSatisfy { $0.encoded() == [0x00, 0xC0, 0x00, 0x00, 0x01] })
        #expect(expected.instruction == 0xCA)
        #expect(
            expected.description
                == "INS CA: card still announced more data after 32 GET RESPONSE rounds (last status 6101 (1 response byte still available))"
        )
    }

    @Test func honoursACustomRoundLimit() async throws {
        let card = ScriptedCardChannel([response("6110"), response("6110")], thenAlways: response("9000"))
        let command = try CommandAPDU(cla: 0x00, ins: 0xCA, p1: 0x00, p2: 0x6E, le: 256)

        await #expect(
            throws: APDUExchangeError(
                reason: .getResponseRoundsExceeded(limit: 1), command: command, statusWord: StatusWord(0x6110))
        ) {
            try await card.send(command, policy: ResponseChainingPolicy(maxGetResponseRounds: 1))
        }
        #expect(await card.sent.count == 2)
    }

    @Test func zeroLimitsTurnFollowUpsIntoErrors() async throws {
        let command = try CommandAPDU(cla: 0x00, ins: 0xB0, p1: 0x00, p2: 0x00, le: 256)
        let policy = ResponseChainingPolicy(maxGetResponseRounds: 0, maxLeCorrections: 0)

        let announcing = ScriptedCardChannel([response("6110")])
        await #expect(
            throws: APDUExchangeError(
                reason: .getResponseRoundsExceeded(limit: 0), command: command, statusWord: StatusWord(0x6110))
        ) {
            try await announcing.send(command, policy: policy)
        }
        let correcting = ScriptedCardChannel([response("6C10")])
        await #expect(
            throws: APDUExchangeError(
                reason: .leCorrectionsExceeded(limit: 0), command: command, statusWord: StatusWord(0x6C10))
        ) {
            try await correcting.send(command, policy: policy)
        }
        #expect(await announcing.sent.count == 1)
        #expect(await correcting.sent.count == 1)
    }

    @Test func stopsWhenGatheredDataExceedsTheCap() async throws {
        let card = ScriptedCardChannel(
            [ResponseAPDU(data: pattern(256), statusWord: StatusWord(0x6100))],
            thenAlways: ResponseAPDU(data: pattern(256), statusWord: StatusWord(0x6100))
        )
        let command = try CommandAPDU(cla: 0x00, ins: 0xCA, p1: 0x00, p2: 0x6E, le: 256)

        await #expect(
            throws: APDUExchangeError(
                reason: .responseDataLimitExceeded(limit: 600), command: command, statusWord: StatusWord(0x6100))
        ) {
            try await card.send(command, policy: ResponseChainingPolicy(maxResponseDataLength: 600))
        }
        // 256 + 256 fit, the third 256 would not.
        #expect(await card.sent.count == 3)
    }

    @Test func dataCapAllowsExactlyTheLimit() async throws {
        let card = ScriptedCardChannel([
            ResponseAPDU(data: pattern(256), statusWord: StatusWord(0x6104)),
            ResponseAPDU(data: pattern(4), statusWord: .success),
        ])
        let command = try CommandAPDU(cla: 0x00, ins: 0xCA, p1: 0x00, p2: 0x6E, le: 256)

        let answer = try await card.send(command, policy: ResponseChainingPolicy(maxResponseDataLength: 260))
        #expect(answer.data.count == 260)
    }

    @Test func propagatesChannelErrors() async throws {
        let card = ScriptedCardChannel([response("6110")])
        let command = try CommandAPDU(cla: 0x00, ins: 0xCA, p1: 0x00, p2: 0x6E, le: 256)
        let getResponse = try CommandAPDU(hex: "00C0000010")

        await #expect(throws: ScriptedCardChannel.ScriptExhausted(command: getResponse)) {
            try await card.send(command)
        }
    }
}
