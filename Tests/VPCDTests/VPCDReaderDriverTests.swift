import CardFlow
import CardFlowVPCD
import CardSimulator
import Testing
import VPCD

/// A vpcd listener as a CardFlow reader: sessions, flows and card-loss handling over the
/// network backend, with our exporter as the card side.
@Suite("vpcd as a CardFlow reader backend")
struct VPCDReaderDriverTests {
    static let select = try! CommandAPDU(bytes: [0x00, 0xA4, 0x04, 0x00, 0x07] + APDUTestCard.applicationID)

    static func reader(_ listener: VPCDListener) -> Reader {
        Reader(info: VPCDReaderDriver.info(for: listener), driver: VPCDReaderDriver(listener: listener))
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
            let error = await #expect(throws: SessionError.self) { try await reader.withSession(policy: policy) { _ in } }
            guard case .noCard = error else { Issue.record("expected noCard, got \(String(describing: error))"); return }
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
