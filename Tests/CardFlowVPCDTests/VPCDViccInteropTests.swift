import CardFlowVPCDProtocol
import Testing

/// Our listener as the reader, vsmartcard's `vicc -t iso7816` (Debian vsmartcard-vpicc) as the
/// card. The expected answers come from vicc's Iso7816OS: its ATR (T=1, TA1 13, historical
/// bytes 80 73 FF 01 00: card capabilities), an MF with no files and a SAM for GET CHALLENGE.
@Suite(
    "vpcd interop: vicc → VPCDListener",
    .enabled(
        if: VPCDPeers.canRunVicc,
        "vicc or pycryptodome missing (Scripts/setup.sh installs them); runs always when CI is set"))
struct VPCDViccInteropTests {
    static let viccATR = hex("3B951381018073FF01000B")

    @Test("vicc's ISO 7816 card powers on with its ATR and answers SELECT, GET CHALLENGE and unknown instructions")
    func iso7816Card() async throws {
        try await VPCDListener.withListener(port: 0, logger: quietLogger) { listener in
            let vicc = try ViccProcess(port: listener.port)
            defer { vicc.stop() }
            let card = try await within(.seconds(20), "vicc connects") { try await listener.waitForCard() }
            #expect(try await card.powerOn() == Self.viccATR, "vicc log: \(vicc.log)")
            // SELECT the MF by identifier, no answer data.
            #expect(try await card.transmit(hex("00A4000C023F00")) == [0x90, 0x00])
            // The MF holds no application with the CardFlow test AID.
            #expect(try await card.transmit(hex("00A4040C07A0000002471001")) == [0x6A, 0x82])
            // GET CHALLENGE: 8 random bytes, different each time.
            let first = try await card.transmit(hex("0084000008"))
            let second = try await card.transmit(hex("0084000008"))
            #expect(first.count == 10 && first.suffix(2) == [0x90, 0x00])
            #expect(second.count == 10 && first.prefix(8) != second.prefix(8))
            // READ BINARY with no EF selected; a proprietary instruction.
            #expect(try await card.transmit(hex("00B0000010")) == [0x69, 0x86])
            #expect(try await card.transmit(hex("80100000")) == [0x6D, 0x00])
            #expect(try await card.reset() == Self.viccATR)
            try await card.powerOff()
            #expect(try await card.powerOn() == Self.viccATR)
            #expect(try await card.transmit(hex("00A4000C023F00")) == [0x90, 0x00])
            await listener.close()
            // vicc takes the closed connection for the reader going away, and exits.
            #expect(await vicc.waitForExit(), "vicc log: \(vicc.log)")
        }
    }

    @Test("vicc going away mid-session is a card removal: cardLost, presence absent, and the next vicc is served")
    func viccLeaves() async throws {
        try await VPCDListener.withListener(port: 0, logger: quietLogger) { listener in
            let first = try ViccProcess(port: listener.port)
            defer { first.stop() }
            let card = try await within(.seconds(20), "vicc connects") { try await listener.waitForCard() }
            #expect(try await card.powerOn() == Self.viccATR)
            first.kill()
            #expect(await first.waitForExit(), "vicc did not exit")
            try await waitFor(.absent, on: listener)
            await #expect(throws: VPCDError.cardLost(.transmit, reason: .peerClosed)) {
                try await card.transmit(hex("00A4000C023F00"))
            }
            let second = try ViccProcess(port: listener.port)
            defer { second.stop() }
            let next = try await within(.seconds(20), "second vicc connects") { try await listener.waitForCard() }
            #expect(next.number == card.number + 1)
            #expect(try await next.powerOn() == Self.viccATR)
            #expect(try await next.transmit(hex("00A4000C023F00")) == [0x90, 0x00])
        }
    }
}
