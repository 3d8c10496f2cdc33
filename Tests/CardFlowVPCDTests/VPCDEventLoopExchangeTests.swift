import CardFlowSimulator
import CardFlowVPCDProtocol
import NIOCore
import NIOPosix
import Testing

/// The exchanges run on the event loop on both ends (VPCDExchangeHandler, VPCDCardServingHandler):
/// cancellation at any moment never pairs an answer with the wrong command, and a reader that
/// floods the card side is served in order without unbounded buffering.
@Suite("vpcd exchanges on the event loop")
struct VPCDEventLoopExchangeTests {
    @Test("cancelling echo APDUs at every moment never gives one an answer meant for another")
    func cancellationNeverMispairsAnswers() async throws {
        try await VPCDEndToEndTests.withPair(SimulatedVPCDCard(APDUTestCard())) { listener in
            _ = try await listener.powerOn()
            var answered = 0
            var cancelled = 0
            for round in 0..<200 {
                // ECHO (80 40): the answer is the command's data reversed, so a mispaired answer shows.
                let data = [UInt8(round & 0xFF), UInt8(round >> 8)]
                let echo = [0x80, 0x40, 0x00, 0x00, 0x02] + data + [0x00]
                let call = Task { try await listener.transmit(echo) }
                // Cancel before the call starts, while it is queued, in flight, or after it ended.
                if round % 4 != 0 {
                    for _ in 0..<(round % 7) { await Task.yield() }
                }
                call.cancel()
                do {
                    #expect(try await call.value == data.reversed() + [0x90, 0x00], "round \(round)")
                    answered += 1
                } catch is CancellationError {
                    cancelled += 1
                }
            }
            // Whatever was abandoned, the next APDU gets its own answer.
            #expect(try await listener.transmit(hex("8040000002ABCD00")) == [0xCD, 0xAB, 0x90, 0x00])
            #expect(answered + cancelled == 200)
            #expect(cancelled > 0)
        }
    }

    @Test("a reader flooding the card side with 20,000 control messages and 300 APDUs gets every answer, in order")
    func floodedCardSideAnswersInOrder() async throws {
        let card = SimulatedVPCDCard(APDUTestCard())
        let server = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .bind(host: "127.0.0.1", port: 0) { channel in
                channel.eventLoop.makeCompletedFuture {
                    try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel)
                }
            }
        let port = try #require(server.channel.localAddress?.port)
        try await withExporter(card, port: port) {
            try await within(.seconds(30), "flood") {
                try await server.executeThenClose { connections in
                    var accepted = connections.makeAsyncIterator()
                    let reader = try #require(try await accepted.next())
                    try await reader.executeThenClose { inbound, outbound in
                        var flood: [UInt8] = []
                        for _ in 0..<20_000 { flood += [0x00, 0x01, 0x01] } // power on, no answer
                        for index in 0..<300 { // ECHO of the index (answered reversed)
                            flood += [
                                0x00, 0x08, 0x80, 0x40, 0x00, 0x00, 0x02, UInt8(index & 0xFF), UInt8(index >> 8), 0x00,
                            ]
                        }
                        try await outbound.write(ByteBuffer(bytes: flood))
                        var iterator = inbound.makeAsyncIterator()
                        let answers = try await iterator.read(count: 300 * 6)
                        var expected: [UInt8] = []
                        for index in 0..<300 {
                            expected += [0x00, 0x04, UInt8(index >> 8), UInt8(index & 0xFF), 0x90, 0x00]
                        }
                        #expect(answers.count == expected.count)
                        #expect(
                            answers == expected,
                            "first difference at byte \(answers.indices.first { answers[$0] != expected[$0] } ?? -1)")
                    }
                }
            }
        }
        #expect(await card.powerEvents.count == 20_000)
    }
}
