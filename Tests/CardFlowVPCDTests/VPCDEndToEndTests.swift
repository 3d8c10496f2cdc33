import CardFlowSimulator
import CardFlowVPCDProtocol
import Testing

/// Our listener (reader side) and our exporter (card side) over loopback, with a simulated card.
@Suite("vpcd listener ↔ exporter")
struct VPCDEndToEndTests {
    static let configuration = VPCDListener.Configuration(
        timeouts: VPCDTimeouts(answer: .seconds(5), lateAnswer: .seconds(5)))

    /// A listener on a free loopback port with an exporter serving `card`.
    static func withPair<Card: VPCDCard, T: Sendable>(
        _ card: Card, configuration: VPCDListener.Configuration = configuration,
        _ body: @escaping @Sendable (VPCDListener) async throws -> T
    ) async throws -> T {
        try await VPCDListener.withListener(port: 0, configuration: configuration, logger: quietLogger) { listener in
            try await withExporter(card, port: listener.port) {
                try await waitFor(.present, on: listener)
                return try await within(.seconds(30), "test body") { try await body(listener) }
            }
        }
    }

    @Test("power on returns the card's ATR; the card sees power on, off and reset")
    func powerOnATR() async throws {
        let card = SimulatedVPCDCard(APDUTestCard())
        try await Self.withPair(card) { listener in
            let atr = try await listener.powerOn()
            #expect(atr == hex("3B868001434641504455") + [ContactlessATR.checkByte(for: hex("3B868001434641504455"))])
            #expect(atr == ContactlessATR.atr(for: APDUTestCard().technology))
            #expect(try await listener.reset() == atr)
            try await listener.powerOff()
            let connection = try #require(await listener.currentCard)
            #expect(try await connection.atr() == atr)
        }
        #expect(await card.powerEvents == ["on", "reset", "off"])
    }

    @Test("APDUs of the four ISO 7816-4 cases come back byte for byte")
    func fourCases() async throws {
        try await Self.withPair(SimulatedVPCDCard(APDUTestCard())) { listener in
            _ = try await listener.powerOn()
            // Case 1: NO-OP.
            #expect(try await listener.transmit(hex("80100000")) == [0x90, 0x00])
            // Case 2: PATTERN, 16 bytes from 5.
            #expect(
                try await listener.transmit(hex("8020050010")) == APDUTestCard.pattern(count: 16, start: 5) + [
                    0x90, 0x00,
                ])
            // Case 3: SINK, then RECEIPT (case 2) to check what arrived.
            let data = (0..<200).map { UInt8($0 & 0xFF) }
            #expect(try await listener.transmit(hex("80300000") + [UInt8(data.count)] + data) == [0x90, 0x00])
            #expect(try await listener.transmit(hex("8032000004")) == APDUTestCard.receipt(of: data) + [0x90, 0x00])
            // Case 4: REVERSE.
            #expect(try await listener.transmit(hex("8040000003010203") + [0x00]) == [0x03, 0x02, 0x01, 0x90, 0x00])
            // SELECT by AID, and an unknown one.
            #expect(
                try await listener.transmit([0x00, 0xA4, 0x04, 0x00, 0x07] + APDUTestCard.applicationID) == [
                    0x90, 0x00,
                ])
            #expect(try await listener.transmit(hex("00A4040003AABBCC")) == [0x6A, 0x82])
        }
    }

    @Test("256-byte answers and an extended-length 4,096-byte answer arrive whole")
    func longAnswers() async throws {
        try await Self.withPair(SimulatedVPCDCard(APDUTestCard())) { listener in
            _ = try await listener.powerOn()
            let short = try await listener.transmit(hex("8020000000"))
            #expect(short == APDUTestCard.pattern(count: 256, start: 0) + [0x90, 0x00])
            let extended = try await listener.transmit(hex("80200700001000"))
            #expect(extended == APDUTestCard.pattern(count: 4096, start: 7) + [0x90, 0x00])
        }
    }

    @Test("an ISO 7816 card model with a file system answers SELECT and READ BINARY")
    func iso7816Card() async throws {
        try await Self.withPair(SimulatedVPCDCard(ISO7816Card())) { listener in
            #expect(try await listener.powerOn() == hex("3B8180018080"))
            let select = try await listener.transmit([0x00, 0xA4, 0x04, 0x0C, 0x07] + ISO7816Card.defaultApplicationID)
            #expect(select == [0x90, 0x00])
            let read = try await listener.transmit(hex("00B0810020"))
            #expect(read == (0..<32).map { UInt8($0) } + [0x90, 0x00])
        }
    }

    @Test("concurrent transmits run one at a time and each gets its own answer")
    func concurrentTransmits() async throws {
        try await Self.withPair(SimulatedVPCDCard(APDUTestCard())) { listener in
            _ = try await listener.powerOn()
            try await withThrowingTaskGroup(of: Void.self) { group in
                for start in 0..<20 {
                    group.addTask {
                        let answer = try await listener.transmit([0x80, 0x20, UInt8(start), 0x00, 0x08])
                        #expect(answer == APDUTestCard.pattern(count: 8, start: UInt8(start)) + [0x90, 0x00])
                    }
                }
                try await group.waitForAll()
            }
        }
    }

    @Test(
        "back-to-back APDUs on four busy connections each get their own answer (an answer can beat its waiter to the actor)"
    )
    func backToBack() async throws {
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<4 {
                group.addTask {
                    try await Self.withPair(SimulatedVPCDCard(APDUTestCard())) { listener in
                        let card = try #require(await listener.currentCard)
                        _ = try await card.powerOn()
                        for index in 0..<500 {
                            let start = UInt8(index % 251)
                            let answer = try await card.transmit([0x80, 0x20, start, 0x00, 0x02])
                            #expect(answer == [start, UInt8((Int(start) + 1) % 251), 0x90, 0x00])
                        }
                    }
                }
            }
            try await group.waitForAll()
        }
    }

    @Test("a card that fails answers 6F00, and an answer too short to be a response APDU too")
    func failingCard() async throws {
        try await Self.withPair(FailingCard()) { (listener: VPCDListener) async throws in
            #expect(try await listener.powerOn() == [0x3B, 0x80, 0x80, 0x01, 0x01])
            #expect(try await listener.transmit(hex("00A4040000")) == [0x6F, 0x00])
            #expect(try await listener.transmit(hex("EE000000")) == [0x6F, 0x00])
        }
    }

    @Test("the card leaving mid-APDU fails the APDU with cardLost, and presence turns absent")
    func cardLeavesMidAPDU() async throws {
        let card = SimulatedVPCDCard(APDUTestCard())
        await card.makeSlow(claIns: [0x80, 0x10], by: .seconds(30))
        try await VPCDListener.withListener(port: 0, configuration: Self.configuration, logger: quietLogger) {
            listener in
            let exporter = VPCDCardExporter(card: card, port: listener.port, logger: quietLogger)
            let exporting = Task { await exporter.run() }
            try await waitFor(.present, on: listener)
            let connection = try #require(await listener.currentCard)
            _ = try await connection.powerOn()
            let pending = Task { try await connection.transmit(hex("80100000")) }
            try await within(.seconds(10), "card starts the APDU") {
                while await card.started.isEmpty { try await Task.sleep(for: .milliseconds(5)) }
            }
            // The phone leaves the field: its app drops the connection.
            exporting.cancel()
            await exporting.value
            await #expect(throws: VPCDError.cardLost(.transmit, reason: .peerClosed)) { try await pending.value }
            try await waitFor(.absent, on: listener)
            #expect(await connection.isConnected == false)
            await #expect(throws: VPCDError.cardLost(.transmit, reason: .peerClosed)) {
                try await connection.transmit(hex("80100000"))
            }
            await #expect(throws: VPCDError.noCard(.transmit)) { try await listener.transmit(hex("80100000")) }
        }
    }

    @Test(
        "a cancelled APDU returns CancellationError before the card answers; the late answer is discarded and the next APDU gets its own"
    )
    func cancellationMidAPDU() async throws {
        let card = SimulatedVPCDCard(APDUTestCard())
        // Held until released below: the card is still working when the cancellation returns.
        await card.hold(claIns: [0x80, 0x20])
        try await Self.withPair(card) { listener in
            _ = try await listener.powerOn()
            let pending = Task { try await listener.transmit(hex("8020110008")) }
            try await within(.seconds(10), "card starts the APDU") {
                while await card.started.isEmpty { try await Task.sleep(for: .milliseconds(5)) }
            }
            pending.cancel()
            await #expect(throws: CancellationError.self) { try await pending.value }
            // Returned while the card was still working on it.
            #expect(await card.completed.isEmpty)
            await card.releaseHeld()
            // The next APDU is sent after the late PATTERN answer has come and been dropped.
            #expect(try await listener.transmit(hex("8040000002010200")) == [0x02, 0x01, 0x90, 0x00])
            #expect(await card.completed == [hex("8020110008"), hex("8040000002010200")])
            #expect(try await listener.transmit(hex("80100000")) == [0x90, 0x00])
        }
    }

    @Test("an APDU that takes too long fails with timedOut; the connection survives once the late answer comes")
    func timeoutThenRecover() async throws {
        let card = SimulatedVPCDCard(APDUTestCard())
        await card.makeSlow(claIns: [0x80, 0x20], by: .milliseconds(400))
        try await Self.withPair(card) { listener in
            _ = try await listener.powerOn()
            await #expect(throws: VPCDError.timedOut(.transmit, after: .milliseconds(100))) {
                try await listener.transmit(hex("8020000004"), timeout: .milliseconds(100))
            }
            #expect(try await listener.transmit(hex("80100000")) == [0x90, 0x00])
        }
    }

    /// A listener on a port below the kernel's ephemeral range (32768–60999 on Linux), picked at
    /// random and retried when taken.
    ///
    /// The reconnection test closes its listener and binds the same port again 300 ms later. An
    /// ephemeral port (`port: 0`) could meanwhile go to another test's `bind(port: 0)` (seen once
    /// as EADDRINUSE on the rebind); ports outside the range are never handed out by the kernel.
    /// (The other failure once seen here, the exporter never reaching the second listener, was
    /// the listener's bug: see `closeDisconnectsLateConnections`.)
    static func listenerOutsideEphemeralRange() async throws -> VPCDListener {
        var lastError: (any Error)?
        for _ in 0..<50 {
            do {
                return try await VPCDListener.bind(
                    port: Int.random(in: 20_000..<30_000), configuration: configuration, logger: quietLogger)
            } catch {
                lastError = error
            }
        }
        throw lastError!
    }

    @Test("the exporter reconnects when the listener comes back, and stops when cancelled")
    func exporterReconnects() async throws {
        let card = SimulatedVPCDCard(APDUTestCard())
        let first = try await Self.listenerOutsideEphemeralRange()
        let port = first.port
        let exporter = VPCDCardExporter(
            card: card, port: port,
            configuration: .init(reconnectDelay: .milliseconds(20), maximumReconnectDelay: .milliseconds(100)),
            logger: quietLogger)
        let exporting = Task { await exporter.run() }
        try await waitFor(.present, on: first)
        #expect(try await first.transmit(hex("80100000")) == [0x90, 0x00])
        await first.close()
        // Nobody listens for a while: the exporter keeps trying, bounded by its backoff.
        try await Task.sleep(for: .milliseconds(300))
        try await VPCDListener.withListener(port: port, configuration: Self.configuration, logger: quietLogger) {
            second in
            try await waitFor(.present, on: second)
            #expect(try await second.transmit(hex("80100000")) == [0x90, 0x00])
            exporting.cancel()
            try await within(.seconds(5), "exporter stops") { await exporting.value }
            try await waitFor(.absent, on: second)
        }
    }

    @Test("closing the listener disconnects every card side, also those that connect while it closes")
    func closeDisconnectsLateConnections() async throws {
        // A card side whose connection the listener accepted but had not yet admitted when
        // close() began used to stay connected forever: an exporter then waited on it instead
        // of reconnecting. Many rounds, as the window is narrow.
        for _ in 0..<40 {
            let listener = try await VPCDListener.bind(port: 0, configuration: Self.configuration, logger: quietLogger)
            let port = listener.port
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<4 {
                    group.addTask {
                        // Refused once the listener is gone: nothing to check then.
                        guard let peer = try? await RawPeer.connect(port: port) else { return }
                        try await within(.seconds(10), "a card side is disconnected") {
                            // The stream ends (or is reset) without a byte.
                            try? await peer.run { reader, _ throws in
                                let bytes = (try? await reader.read(count: 1)) ?? []
                                #expect(bytes.isEmpty)
                            }
                        }
                    }
                }
                await listener.close()
                try await group.waitForAll()
            }
        }
    }

    @Test("a second card connection while one is active is closed; the first keeps working")
    func secondConnectionRefused() async throws {
        try await Self.withPair(SimulatedVPCDCard(APDUTestCard())) { listener in
            let intruder = try await RawPeer.connect(port: listener.port)
            try await within(.seconds(5), "intruder closed") {
                try await intruder.run { reader, _ in
                    // The listener closes it: the stream ends without a byte.
                    let bytes = try await reader.read(count: 1)
                    #expect(bytes.isEmpty)
                }
            }
            #expect(try await listener.transmit(hex("80100000")) == [0x90, 0x00])
        }
    }

    @Test("the listener refuses non-loopback addresses unless allowRemote is set")
    func loopbackOnly() async throws {
        await #expect(throws: VPCDError.remoteBindNotAllowed(host: "0.0.0.0")) {
            try await VPCDListener.bind(host: "0.0.0.0", port: 0, logger: quietLogger)
        }
        await #expect(throws: VPCDError.remoteBindNotAllowed(host: "::")) {
            try await VPCDListener.bind(host: "::", port: 0, logger: quietLogger)
        }
        let remote = try await VPCDListener.bind(host: "0.0.0.0", port: 0, allowRemote: true, logger: quietLogger)
        await remote.close()
        for host in ["127.0.0.1", "127.0.0.2", "localhost"] {
            let local = try await VPCDListener.bind(host: host, port: 0, logger: quietLogger)
            await local.close()
        }
    }

    @Test("presence streams start with the state now and finish when the listener closes")
    func presenceFinishes() async throws {
        let listener = try await VPCDListener.bind(port: 0, logger: quietLogger)
        let stream = await listener.presenceChanges()
        await listener.close()
        var states: [VPCDCardPresence] = []
        for try await state in stream { states.append(state) }
        #expect(states == [.absent])
        await #expect(throws: VPCDError.listenerClosed) { try await listener.transmit(hex("80100000")) }
    }
}
