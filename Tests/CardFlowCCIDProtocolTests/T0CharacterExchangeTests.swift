import Testing

@testable import CardFlowCCIDProtocol

/// The host side of T=0 at character level against card character streams written from
/// ISO/IEC 7816-3 §10.3 (NULL 60, ACK = INS, INS ⊕ FF for one byte, SW1 SW2), fed exactly as many
/// bytes as each step asks for, as a character-level reader returns them.
@Suite struct T0CharacterExchangeTests {
    /// Runs `tpdu` against a card that sends `stream`; returns the outcome, what the host sent after
    /// the header, and how many transfers it took.
    static func run(_ tpdu: [UInt8], card stream: [UInt8]) -> (T0CharacterStep, sent: [UInt8], transfers: Int) {
        var exchange = T0CharacterExchange(tpdu: tpdu)
        var step = exchange.start()
        var sent: [UInt8] = []
        var transfers = 0
        var position = 0
        while case .transfer(let send, let expect) = step {
            transfers += 1
            if transfers > 1 { sent += send }
            guard position + expect <= stream.count else {
                return (.failed(.answerLength(expected: expect, received: stream.count - position)), sent, transfers)
            }
            step = exchange.receive(Array(stream[position..<(position + expect)]))
            position += expect
        }
        return (step, sent, transfers)
    }

    static let data16: [UInt8] = (0..<16).map { UInt8($0 * 7 & 0xFF) }

    @Test("case 2: NULLs, ACK, all data, SW — two transfers")
    func case2WithACK() {
        let (step, sent, transfers) = Self.run(
            [0x00, 0xB0, 0x00, 0x00, 0x10], card: [0x60, 0xB0] + Self.data16 + [0x90, 0x00])
        #expect(step == .completed(Self.data16 + [0x90, 0x00]))
        #expect(sent.isEmpty)
        #expect(transfers == 2)
    }

    @Test("case 2: INS ⊕ FF before each data byte")
    func case2OneByteAtATime() {
        let stream: [UInt8] = Self.data16.flatMap { byte -> [UInt8] in [0x4F, byte] } + [0x90, 0x00]
        let (step, _, _) = Self.run([0x00, 0xB0, 0x00, 0x00, 0x10], card: stream)
        #expect(step == .completed(Self.data16 + [0x90, 0x00]))
    }

    @Test("case 2: two bytes one at a time, then ACK for the rest, a NULL in between")
    func case2Mixed() {
        let stream: [UInt8] =
            [0x4F, Self.data16[0], 0x4F, Self.data16[1], 0x60, 0xB0] + Self.data16[2...] + [0x62, 0x82]
        let (step, _, _) = Self.run([0x00, 0xB0, 0x00, 0x00, 0x10], card: stream)
        #expect(step == .completed(Self.data16 + [0x62, 0x82]))
    }

    @Test("case 2 answered with a status word only (6Cxx)")
    func case2StatusOnly() {
        let (step, _, _) = Self.run([0x00, 0xB0, 0x00, 0x00, 0x10], card: [0x6C, 0x08])
        #expect(step == .completed([0x6C, 0x08]))
    }

    @Test("case 3: ACK, all data sent in one transfer, SW")
    func case3WithACK() {
        let tpdu: [UInt8] = [0x00, 0xD6, 0x00, 0x00, 0x10] + Self.data16
        let (step, sent, transfers) = Self.run(tpdu, card: [0xD6, 0x90, 0x00])
        #expect(step == .completed([0x90, 0x00]))
        #expect(sent == Self.data16)
        #expect(transfers == 2)
    }

    @Test("case 3: INS ⊕ FF for each byte: the data goes one byte per transfer")
    func case3OneByteAtATime() {
        let tpdu: [UInt8] = [0x00, 0xD6, 0x00, 0x00, 0x04, 1, 2, 3, 4]
        let (step, sent, transfers) = Self.run(tpdu, card: [0x29, 0x29, 0x29, 0x29, 0x90, 0x00])
        #expect(step == .completed([0x90, 0x00]))
        #expect(sent == [1, 2, 3, 4])
        #expect(transfers == 5)
    }

    @Test("a procedure byte that is neither NULL, ACK, INS ⊕ FF nor SW1 fails the exchange")
    func wrongProcedureByte() {
        let (step, _, _) = Self.run([0x00, 0xB0, 0x00, 0x00, 0x10], card: [0x12, 0x34])
        #expect(step == .failed(.unexpectedProcedureByte(0x12, instruction: 0xB0)))
    }

    @Test("data delivered in any split gives the same answer as one byte per receive")
    func splitsAgree() {
        // The promised data bytes may arrive in pieces of any size: feed the ACKed stream of a
        // 200-byte case 2 answer in every piece size from 1 to 40.
        let data = (0..<200).map { UInt8($0 & 0xFF) }
        for piece in 1...40 {
            var exchange = T0CharacterExchange(tpdu: [0x00, 0xB0, 0x00, 0x00, 200])
            _ = exchange.start()
            var step = exchange.receive([0xB0, data[0]])
            var position = 1
            while position < data.count {
                let end = min(position + piece, data.count)
                step = exchange.receive(Array(data[position..<end]))
                position = end
            }
            step = exchange.receive([0x90, 0x00])
            #expect(step == .completed(data + [0x90, 0x00]), "piece \(piece)")
        }
    }
}
