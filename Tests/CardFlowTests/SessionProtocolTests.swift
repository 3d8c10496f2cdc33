import CardFlow
import CardFlowCCID
import CardFlowCCIDProtocol
import CardFlowSimulator
import Testing

/// `SessionPolicy.transmissionProtocol`: a session asks for T=0 or T=1 when it powers a contact
/// card on, whatever the driver's default.
@Suite("Session protocol choice")
struct SessionProtocolTests {
    /// A TPDU reader offering T=0 and T=1, with a contact card.
    static func contactReader(_ contact: ContactInterface) async -> Reader {
        await contactReaderAndDevice(contact).reader
    }

    static func contactReaderAndDevice(_ contact: ContactInterface) async -> (reader: Reader, device: VirtualCCIDReader)
    {
        var configuration = VirtualReaderConfiguration.level(.tpdu)
        configuration.descriptor.protocols = [.t0, .t1]
        let virtual = VirtualCCIDReader(configuration: configuration)
        await virtual.insert(ISO7816Card(seed: 1, contactInterface: contact))
        return (Reader.simulated(virtual), virtual)
    }

    /// `FF CA` is for a contactless reader to answer with its card's UID; a contact card would
    /// get it as its own command (vsmartcard's vicc died of it), so a session on a contact card
    /// sends only what its user sends and knows the card by its ATR.
    @Test func aContactCardGetsNoGetDataForItsUID() async throws {
        let (reader, device) = await Self.contactReaderAndDevice(.dual(ta1: 0x13))
        let identity = try await reader.withSession { session in
            _ = try await session.send(selectApp)
            return await session.identity
        }
        #expect(await device.apdusProcessed == 1)
        #expect(identity.uid == nil && identity.key == identity.atr)
        #expect(!ATRIdentification(atr: identity.atr).isContactless)
    }

    @Test(arguments: [(CardProtocol?.none, TransmissionProtocol.t1), (.t0, .t0), (.t1, .t1)])
    func aDualCardRunsTheProtocolTheSessionAskedFor(asked: CardProtocol?, expected: TransmissionProtocol) async throws {
        let reader = await Self.contactReader(.dual(ta1: 0x13))
        var policy = SessionPolicy()
        policy.transmissionProtocol = asked
        let (used, answer) = try await reader.withSession(policy: policy) { session in
            _ = try await session.send(selectApp)
            let answer = try await session.send(try CommandAPDU(hex: "00B0810004"))
            return (await reader.ccid!.driver.activeProtocol(), answer)
        }
        #expect(used == expected)
        #expect(answer.data == [0, 1, 2, 3] && answer.statusWord == .success)
        // The next session may ask for the other one: the choice is per power-on.
        policy.transmissionProtocol = expected == .t0 ? .t1 : .t0
        let other = try await reader.withSession(policy: policy) { _ in await reader.ccid!.driver.activeProtocol() }
        #expect(other == (expected == .t0 ? .t1 : .t0))
    }

    @Test func aProtocolTheCardLacksFailsTheConnectTyped() async throws {
        let reader = await Self.contactReader(.t0Only())
        var policy = SessionPolicy()
        policy.transmissionProtocol = .t1
        policy.connectTimeout = .seconds(2)
        await #expect(
            throws: CCIDDriverError.protocolSelection(.protocolNotOffered(.t1, card: [.t0], reader: [.t0, .t1]))
        ) {
            try await reader.withSession(policy: policy) { _ in }
        }
        // The reader is free and the card usable with what it offers.
        policy.transmissionProtocol = .t0
        #expect(try await reader.withSession(policy: policy) { _ in await reader.ccid!.driver.activeProtocol() } == .t0)
    }
}
