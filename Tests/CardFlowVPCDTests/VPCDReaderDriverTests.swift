import CardFlow
import CardFlowSimulator
import CardFlowVPCD
import CardFlowVPCDProtocol
import Testing

/// A vpcd listener as a CardFlow reader: sessions, flows and card-loss handling over the
/// network backend, with our exporter as the card side.
@Suite("vpcd as a CardFlow reader backend")
struct VPCDReaderDriverTests {
    static let select = try! CommandAPDU(bytes: [0x00, 0xA4, 0x04, 0x00, 0x07] + APDUTestCard.applicationID)

    static func reader(_ listener: VPCDListener) -> Reader {
        Reader(vpcd: listener)
    }

    @Test func aSessionAndAFlowRunOverTheNetworkReader() async throws {
        try await VPCDListener.withListener(port: 0, logger: quietLogger) { listener in
            let reader = Self.reader(listener)
            #expect(reader.info.backend == "vpcd")
            #expect(reader.info.id == "vpcd:127.0.0.1:\(listener.port)")
            try await withExporter(SimulatedVPCDCard(APDUTestCard()), port: listener.port) {
                var policy = SessionPolicy()
                policy.presencePollInterval = .milliseconds(20)
                let (atr, selected) = try await reader.withSession(policy: policy) { session in
                    (await session.identity.atr, try await session.send(Self.select).statusWord)
                }
                #expect(atr == ContactlessATR.atr(for: APDUTestCard().technology))
                #expect(selected == .success)
                let flow = Flow.start("select") { session in try await session.send(Self.select).statusWord }
                    .then("pattern") { _, session in try await session.send(try CommandAPDU(hex: "8020000008")).data }
                #expect(try await reader.run(flow, policy: policy).value == APDUTestCard.pattern(count: 8, start: 0))
            }
        }
    }

    @Test func noCardSideIsNoCardAndADisconnectIsACardLoss() async throws {
        try await VPCDListener.withListener(port: 0, logger: quietLogger) { listener in
            let reader = Self.reader(listener)
            var policy = SessionPolicy()
            policy.connectTimeout = .milliseconds(200)
            policy.presencePollInterval = .milliseconds(20)
            let error = await #expect(throws: SessionError.self) {
                try await reader.withSession(policy: policy) { _ in }
            }
            guard case .noCard = error else {
                Issue.record("expected noCard, got \(String(describing: error))"); return
            }
            #expect(VPCDError.noCard(.transmit).cardLoss == .noCard)
            #expect(VPCDError.cardLost(.transmit, reason: .peerClosed).meansCardLost)
            #expect(VPCDError.timedOut(.powerOn, after: .seconds(1)).cardLoss == .notActivated)
            #expect(!VPCDError.listenerClosed.meansCardLost)
            // A card side that leaves mid-session: the next APDU fails as a card loss.
            policy.connectTimeout = .seconds(10)
            let session = try await withExporter(SimulatedVPCDCard(APDUTestCard()), port: listener.port) {
                try await reader.connect(policy: policy)
            }
            let lost = await #expect(throws: (any Error).self) { try await session.send(Self.select) }
            #expect(lost?.meansCardLost == true, "\(String(describing: lost))")
            await session.close()
        }
    }
}

/// The other direction: any CardFlow reader's card as the card side (`cardctl export`).
@Suite("A CardFlow reader's card exported over vpcd")
struct ReaderVPCDCardTests {
    @Test func ourListenerUsesTheExportedSimulatedCard() async throws {
        let virtual = VirtualCCIDReader()
        await virtual.insert(APDUTestCard())
        let source = Reader.simulated(virtual)
        let card = ReaderVPCDCard(reader: source)
        try await VPCDEndToEndTests.withPair(card) { listener in
            let atr = try await listener.powerOn()
            #expect(atr == ContactlessATR.atr(for: APDUTestCard().technology))
            // Case 4 through vpcd, then CardFlow's session, the CCID driver and the simulated reader.
            #expect(try await listener.transmit(hex("8040000003010203") + [0x00]) == [0x03, 0x02, 0x01, 0x90, 0x00])
            #expect(try await listener.reset() == atr)
            #expect(try await listener.transmit(hex("80100000")) == [0x90, 0x00])
            try await listener.powerOff()
        }
        await card.powerOff()
        #expect(await virtual.apdusProcessed >= 2)
    }

    /// A reader's power on activates the card: a DESFire is at the PICC level again, wherever the
    /// previous client left it (issue 35, item 3: the PyPI `desfire` client sends GetApplicationIDs
    /// with no SelectApplication first, as a real card allows after activation).
    @Test func powerOnActivatesTheCardAgainSoADESFireIsAtThePICCLevel() async throws {
        let virtual = VirtualCCIDReader()
        await virtual.insert(DESFireCard(seed: 3))
        let card = ReaderVPCDCard(reader: Reader.simulated(virtual))
        try await VPCDEndToEndTests.withPair(card) { listener in
            _ = try await listener.powerOn()
            // CreateApplication 000001 (factory PICC key settings allow it without a key), select it.
            #expect(try await listener.transmit(hex("90CA0000050100000F0100")) == [0x91, 0x00])
            #expect(try await listener.transmit(hex("905A00000301000000")) == [0x91, 0x00])
            // At application level GetApplicationIDs is refused, as on a real card.
            #expect(try await listener.transmit(hex("906A000000")) == [0x91, 0x9D])
            // The next client's reader powers the card on without powering it off first.
            _ = try await listener.powerOn()
            #expect(try await listener.transmit(hex("906A000000")) == [0x01, 0x00, 0x00, 0x91, 0x00])
            try await listener.powerOff()
        }
        await card.powerOff()
    }

    @Test func aCardLiftedFromTheSourceReaderIsAnErrorAnswerThenComesBack() async throws {
        let virtual = VirtualCCIDReader()
        await virtual.insert(APDUTestCard())
        var policy = SessionPolicy()
        policy.connectTimeout = .milliseconds(300)
        policy.presencePollInterval = .milliseconds(20)
        let card = ReaderVPCDCard(reader: Reader.simulated(virtual), policy: policy)
        try await VPCDEndToEndTests.withPair(card) { listener in
            _ = try await listener.powerOn()
            #expect(try await listener.transmit(hex("80100000")) == [0x90, 0x00])
            await virtual.removeCard()
            // The exporter answers a failed command with 6F 00 (no precise diagnosis).
            #expect(try await listener.transmit(hex("80100000")) == [0x6F, 0x00])
            await virtual.insert(APDUTestCard())
            #expect(try await listener.transmit(hex("80100000")) == [0x90, 0x00])
        }
        await card.powerOff()
    }
}

@Suite("vpcd sessions never send PC/SC part 3 GET DATA to the card")
struct VPCDIdentityTests {
    /// Records every command the card side receives.
    actor RecordingCard: VPCDCard {
        private(set) var commands: [[UInt8]] = []
        func powerOn() {}
        func powerOff() {}
        func reset() {}
        func atr() -> [UInt8] { [0x3B, 0x80, 0x80, 0x01, 0x01] }
        func transmit(_ apdu: [UInt8]) -> [UInt8] {
            commands.append(apdu)
            return [0x90, 0x00]
        }
    }

    @Test func theSessionIdentifiesTheCardByItsATR() async throws {
        let card = RecordingCard()
        try await VPCDListener.withListener(port: 0, logger: quietLogger) { listener in
            let reader = Reader(vpcd: listener)
            #expect(!reader.info.capabilities.readsCardUID)
            try await withExporter(card, port: listener.port) {
                let identity = try await reader.withSession { session in
                    _ = try await session.send(try CommandAPDU(hex: "80100000"))
                    return await session.identity
                }
                #expect(identity.uid == nil)
                #expect(identity.key == [0x3B, 0x80, 0x80, 0x01, 0x01])
            }
        }
        // vicc crashes on FF CA (its GET DATA handler raises): only the application's APDU arrived.
        #expect(await card.commands == [[0x80, 0x10, 0x00, 0x00]])
    }
}
