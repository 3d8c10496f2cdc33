import CardFlowSimulator
import CardFlowVPCDProtocol
import NIOCore
import Testing

typealias PeerReader = NIOAsyncChannelInboundStream<ByteBuffer>.AsyncIterator
typealias PeerWriter = NIOAsyncChannelOutboundWriter<ByteBuffer>

/// Card sides that break the protocol are disconnected with a typed error, memory stays
/// bounded, and the listener serves the next (well-behaved) card.
@Suite("vpcd hostile card sides")
struct VPCDHostilePeerTests {
    /// Generous limits: a peer that answers at once can still take seconds to do so while the
    /// whole suite runs on two cores, and these tests are about what it answers, not when.
    static let configuration = VPCDListener.Configuration(
        timeouts: VPCDTimeouts(answer: .seconds(20), lateAnswer: .seconds(20)),
        maximumResponseLength: 300)
    /// Short limits, for the test of a peer that never answers.
    static let shortTimeouts = VPCDListener.Configuration(
        timeouts: VPCDTimeouts(answer: .milliseconds(500), lateAnswer: .milliseconds(500)),
        maximumResponseLength: 300)
    static let noOp = hex("80100000")
    static let noOpFrame: [UInt8] = [0x00, 0x04] + noOp

    /// Connects a raw peer behaving as `peer` says, runs `check` once it is the listener's card,
    /// waits for the listener to drop it, then proves the listener still serves a good card.
    /// `peer` returns whether to stay connected afterwards (until the listener hangs up).
    static func withHostilePeer(
        configuration: VPCDListener.Configuration = configuration,
        _ peer: @escaping @Sendable (inout PeerReader, PeerWriter) async throws -> Bool,
        check: @escaping @Sendable (VPCDListener, VPCDCardConnection) async throws -> Void
    ) async throws {
        try await VPCDListener.withListener(port: 0, configuration: configuration, logger: quietLogger) { listener in
            let raw = try await RawPeer.connect(port: listener.port)
            try await within(.seconds(60), "hostile peer") {
                try await withThrowingTaskGroup(of: Void.self) { group in
                    group.addTask {
                        try await raw.run { reader, writer in
                            if try await peer(&reader, writer) {
                                _ = try? await reader.read(count: 1 << 20)
                            }
                        }
                    }
                    try await waitFor(.present, on: listener)
                    let connection = try #require(await listener.currentCard)
                    try await check(listener, connection)
                    try await waitFor(.absent, on: listener)
                    try await group.waitForAll()
                }
            }
            try await withExporter(SimulatedVPCDCard(APDUTestCard()), port: listener.port) {
                try await waitFor(.present, on: listener)
                // A limit of its own: `configuration` may have short timeouts (for a peer that never
                // answers), which a loaded machine can overrun with a good card too.
                let answer = try await listener.transmit(noOp, timeout: .seconds(20))
                #expect(answer == [0x90, 0x00])
            }
        }
    }

    /// Reads our NO-OP command, then answers with `bytes`.
    static func answering(_ bytes: [UInt8], thenClose: Bool = false)
        -> @Sendable (inout PeerReader, PeerWriter) async throws -> Bool
    {
        { reader, writer in
            let request = try await reader.read(count: noOpFrame.count)
            #expect(request == noOpFrame)
            try await writer.write(bytes: bytes)
            return !thenClose
        }
    }

    @Test("a zero-length answer disconnects the card with emptyMessage")
    func zeroLengthAnswer() async throws {
        try await Self.withHostilePeer(Self.answering([0x00, 0x00])) { listener, _ in
            await #expect(throws: VPCDError.cardLost(.transmit, reason: .protocolViolation(.emptyMessage))) {
                try await listener.transmit(Self.noOp)
            }
        }
    }

    @Test("an oversized answer is refused from its length alone")
    func oversizedAnswer() async throws {
        // Only the length: the listener must not wait for (or buffer) the 512 bytes.
        try await Self.withHostilePeer(Self.answering([0x02, 0x00])) { listener, _ in
            await #expect(
                throws: VPCDError.cardLost(
                    .transmit, reason: .protocolViolation(.messageTooLarge(length: 512, maximum: 300)))
            ) {
                try await listener.transmit(Self.noOp)
            }
        }
    }

    @Test("a flood of garbage is refused at its first two bytes")
    func garbageFlood() async throws {
        try await Self.withHostilePeer(Self.answering([UInt8](repeating: 0xFF, count: 200_000))) { listener, _ in
            await #expect(
                throws: VPCDError.cardLost(
                    .transmit, reason: .protocolViolation(.messageTooLarge(length: 65_535, maximum: 300)))
            ) {
                try await listener.transmit(Self.noOp)
            }
        }
    }

    @Test("a length prefix then silence times out; the owed answer never comes, so the next exchange disconnects")
    func prefixThenSilence() async throws {
        // The peer sends a length prefix of 16 and one byte. On a starved machine the listener may
        // already have given up and closed the connection before the peer writes: the listener's
        // behaviour under test is the same (timed out, then the owed answer missing), so the
        // peer's write may fail.
        let prefixThenSilence: @Sendable (inout PeerReader, PeerWriter) async throws -> Bool = { reader, writer in
            let request = try await reader.read(count: Self.noOpFrame.count)
            #expect(request == Self.noOpFrame)
            try? await writer.write(bytes: [0x00, 0x10, 0x90])
            return true
        }
        try await Self.withHostilePeer(configuration: Self.shortTimeouts, prefixThenSilence) {
            listener, connection in
            await #expect(throws: VPCDError.timedOut(.transmit, after: .milliseconds(500))) {
                try await listener.transmit(Self.noOp)
            }
            await #expect(throws: VPCDError.cardLost(.transmit, reason: .lateAnswerMissing)) {
                try await listener.transmit(Self.noOp)
            }
            #expect(await connection.lossReason == .lateAnswerMissing)
        }
    }

    @Test("disconnecting in the middle of an answer is a truncated message")
    func disconnectMidMessage() async throws {
        try await Self.withHostilePeer(Self.answering([0x00, 0x10, 0x01, 0x02], thenClose: true)) { listener, _ in
            await #expect(
                throws: VPCDError.cardLost(
                    .transmit, reason: .protocolViolation(.truncatedMessage(expected: 16, received: 2)))
            ) {
                try await listener.transmit(Self.noOp)
            }
        }
    }

    @Test("a message no command asked for disconnects the card")
    func unsolicitedMessage() async throws {
        let (go, signal) = AsyncStream.makeStream(of: Void.self)
        try await Self.withHostilePeer(
            { _, writer in
                for await _ in go { break }
                try await writer.write(bytes: [0x00, 0x02, 0x90, 0x00])
                return true
            },
            check: { listener, connection in
                signal.yield()
                try await waitFor(.absent, on: listener)
                #expect(await connection.lossReason == .protocolViolation(.unsolicitedMessage(length: 2)))
                await #expect(
                    throws: VPCDError.cardLost(.transmit, reason: .protocolViolation(.unsolicitedMessage(length: 2)))
                ) {
                    try await connection.transmit(Self.noOp)
                }
            })
    }

    @Test("the exporter disconnects from a reader sending a command over its limit, then reconnects")
    func exporterBoundsCommands() async throws {
        try await VPCDListener.withListener(
            port: 0, configuration: VPCDEndToEndTests.configuration, logger: quietLogger
        ) { listener in
            let configuration = VPCDCardExporter.Configuration(
                reconnectDelay: .milliseconds(20), maximumReconnectDelay: .milliseconds(100),
                maximumCommandLength: 300)
            try await withExporter(SimulatedVPCDCard(APDUTestCard()), port: listener.port, configuration: configuration)
            {
                try await waitFor(.present, on: listener)
                let first = try #require(await listener.currentCard)
                let big =
                    hex("80300000") + [0xFF] + [UInt8](repeating: 1, count: 255) + [UInt8](repeating: 2, count: 100)
                await #expect(throws: VPCDError.cardLost(.transmit, reason: .peerClosed)) {
                    try await first.transmit(big)
                }
                // It comes back as a new card.
                try await within(.seconds(5), "exporter back") {
                    while await (listener.currentCard.map { $0.number } ?? first.number) == first.number {
                        try await Task.sleep(for: .milliseconds(10))
                    }
                }
                let answer = try await listener.transmit(Self.noOp)
                #expect(answer == [0x90, 0x00])
            }
        }
    }
}
