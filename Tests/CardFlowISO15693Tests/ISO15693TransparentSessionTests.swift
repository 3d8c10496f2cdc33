import CardFlow
import CardFlowISO15693
import CardFlowSimulatorCards
import CardFlowSimulatorTestSupport
import Testing

/// ``ISO15693Tag/withTransparentSession(_:)`` ends the session it started whatever happens inside,
/// against scripted readers (a recorded-conversation card fails any command out of order).
@Suite("ISO 15693 transparent session")
struct ISO15693TransparentSessionTests {
    static let start = "> FF C2 00 00 02 81 00 00\n< C0 03 00 90 00 90 00"
    static let end = "> FF C2 00 00 02 82 00 00\n< C0 03 00 90 00 90 00"

    /// A channel straight to a card that plays `exchanges` and nothing else.
    static func channel(_ exchanges: String) throws -> BudgetedCardChannel {
        let recording = try APDURecording(
            parsing: """
                # source: https://community.nxp.com/t5/Multi-Source-Translation-Content/2093136-en-US/ta-p/2291679
                # card: a scripted ISO 15693 tag behind a part 3 reader
                # license: written for this test, in the form of the thread's session
                # storage: 0B 0014
                \(exchanges)
                """)
        return BudgetedCardChannel(
            card: RecordedConversationCard(recording: recording), budget: 10, deadline: .seconds(10))
    }

    @Test("the tag's error inside the session: the session is still ended, the tag's error reported")
    func bodyThrows() async throws {
        let channel = try Self.channel(
            """
            \(Self.start)
            > FF C2 00 02 04 8F 02 02 03
            < C0 03 00 90 00 8F 01 00 90 00
            > FF C2 00 01 04 95 02 02 2B 00
            < C0 03 00 90 00 92 01 00 96 02 00 00 97 02 01 0F 90 00
            \(Self.end)
            """)
        await #expect(throws: ISO15693Error.tagError(code: 0x0F)) {
            try await ISO15693Tag(channel: channel).withTransparentSession { tag in
                try await tag.systemInformation()
            }
        }
        #expect(await channel.apduCount == 4)
    }

    @Test("a reader that refuses the switch to ISO 15693: its status word typed, the session ended, the body never run")
    func switchRefused() async throws {
        let channel = try Self.channel(
            """
            \(Self.start)
            > FF C2 00 02 04 8F 02 02 03
            < C0 03 01 6A 81 90 00
            \(Self.end)
            """)
        var ran = false
        await #expect(throws: ISO15693Error.exchangeFailed(sw: 0x6A81)) {
            try await ISO15693Tag(channel: channel).withTransparentSession { _ in ran = true }
        }
        #expect(!ran)
        #expect(await channel.apduCount == 3)
    }

    @Test("a session the reader will not start: nothing else is sent")
    func startRefused() async throws {
        let channel = try Self.channel("> FF C2 00 00 02 81 00 00\n< 6A 81")
        await #expect(throws: (any Error).self) {
            try await ISO15693Tag(channel: channel).withTransparentSession { _ in }
        }
        #expect(await channel.apduCount == 1)
    }

    @Test("a write with a 1-second timer: byte for byte the thread's command (5F 46 04 40 42 0F 00 before 95)")
    func writeWithTheThreadsTimer() async throws {
        // The command is the one the thread published; the thread gives the answer only as "OK",
        // so the answer here is written for the test (flags 00: done).
        let channel = try Self.channel(
            """
            > FF C2 00 01 10 5F 46 04 40 42 0F 00 95 07 02 21 00 00 01 02 03 00
            < C0 03 00 90 00 92 01 00 96 02 00 00 97 01 00 90 00
            """)
        try await ISO15693Tag(channel: channel, exchangeTimeout: .seconds(1)).writeBlockDirectly(0, data: [0, 1, 2, 3])
        #expect(await channel.apduCount == 1)
    }

    @Test("with a timer a request of 247 bytes no longer fits, 246 still does")
    func timerShortensTheLongestRequest() async throws {
        let channel = try Self.channel("> FF C2 00 00 02 81 00 00\n< C0 03 00 90 00 90 00")
        let tag = ISO15693Tag(channel: channel, exchangeTimeout: .milliseconds(50))
        await #expect(throws: ISO15693Error.requestTooLong(247)) {
            _ = try await tag.transceive([UInt8](repeating: 0x02, count: 247))
        }
        #expect(await channel.apduCount == 0)
    }
}
