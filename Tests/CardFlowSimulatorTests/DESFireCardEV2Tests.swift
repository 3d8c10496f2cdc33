import CardFlowCrypto
import Testing

@testable import CardFlowSimulator
@testable import CardFlowSimulatorCards

/// The DESFire model's EV2 secure channel driven with raw APDUs by a host written here from the
/// formulas of NT4H2421Gx §9.1 / AN12196 (not by the DESFire client).
@Suite("DESFire card: EV2 authentication and secure messaging")
struct DESFireCardEV2Tests {
    /// The host side of one EV2 session.
    struct Host {
        var encryption: [UInt8]
        var mac: [UInt8]
        var transactionIdentifier: [UInt8]
        var counter: UInt16 = 0

        var counterBytes: [UInt8] { [UInt8(truncatingIfNeeded: counter), UInt8(truncatingIfNeeded: counter >> 8)] }

        func commandMAC(_ ins: UInt8, _ body: [UInt8]) throws -> [UInt8] {
            MACTruncation.ev2OddBytes(try AESCMAC.mac([ins] + counterBytes + transactionIdentifier + body, key: mac))
        }

        /// Checks `data ‖ MACt` of an answer at the next counter and returns `data`.
        mutating func acceptAnswer(_ answer: [UInt8]) throws -> [UInt8]? {
            counter += 1
            let data = Array(answer.dropLast(8))
            let expected = MACTruncation.ev2OddBytes(
                try AESCMAC.mac([0x00] + counterBytes + transactionIdentifier + data, key: mac))
            return expected == Array(answer.suffix(8)) ? data : nil
        }

        func responseIV() throws -> [UInt8] {
            try AES128Cipher(key: encryption).encryptBlock(
                [0x5A, 0xA5] + transactionIdentifier + counterBytes + [UInt8](repeating: 0, count: 8))
        }
    }

    static let zero = [UInt8](repeating: 0, count: 16)

    static func vector(_ label: [UInt8], _ rndA: [UInt8], _ rndB: [UInt8]) -> [UInt8] {
        let mixed: [UInt8] = (0..<6).map { rndA[2 + $0] ^ rndB[$0] }
        return label + [0x00, 0x01, 0x00, 0x80] + rndA[0..<2] + mixed + rndB[6..<16] + rndA[8..<16]
    }

    /// A card with AES application 0x00EE02 (two zero keys), selected.
    static func card() -> DESFireCard {
        var card = DESFireCard(seed: 22)
        card.powerOn()
        _ = card.send(0xCA, [0x02, 0xEE, 0x00, 0x0F, 0x82])
        _ = card.send(0x5A, [0x02, 0xEE, 0x00])
        return card
    }

    /// AuthenticateEV2First with key 0 (all zeros).
    static func authenticate(_ card: inout DESFireCard, key: [UInt8] = zero) throws -> (Host, DESFireAnswer) {
        let challenge = card.send(0x71, [0x00, 0x00])
        let rndB = try AES128Cipher(key: key).decryptCBC(challenge.data, iv: zero)
        let rndA = (0..<16).map { UInt8($0 * 3 + 1) }
        let token = try AES128Cipher(key: key).encryptCBC(rndA + rndB.dropFirst() + rndB.prefix(1), iv: zero)
        let answer = card.send(0xAF, token)
        guard answer.status == 0x00 else { return (Host(encryption: [], mac: [], transactionIdentifier: []), answer) }
        let plain = try AES128Cipher(key: key).decryptCBC(answer.data, iv: zero)
        let host = Host(
            encryption: try AESCMAC.mac(vector([0xA5, 0x5A], rndA, rndB), key: key),
            mac: try AESCMAC.mac(vector([0x5A, 0xA5], rndA, rndB), key: key),
            transactionIdentifier: Array(plain.prefix(4)))
        #expect(Array(plain[4..<20]) == Array(rndA.dropFirst() + rndA.prefix(1)))
        return (host, answer)
    }

    @Test("AuthenticateEV2First, then MACed GetKeyVersion and Full GetCardUID at counters 0 and 1")
    func authenticateAndExchange() throws {
        var card = Self.card()
        var (host, answer) = try Self.authenticate(&card)
        #expect(answer.status == 0x00)
        let version = card.send(0x64, [0x01] + (try host.commandMAC(0x64, [0x01])))
        #expect(version.status == 0x00)
        #expect(try host.acceptAnswer(version.data) == [0x00])

        let uidAnswer = card.send(0x51, try host.commandMAC(0x51, []))
        #expect(uidAnswer.status == 0x00)
        let cryptogram = try #require(try host.acceptAnswer(uidAnswer.data))
        // The answer IV is taken at the counter after the command (now the host's).
        let iv = try host.responseIV()
        let plain = try AES128Cipher(key: host.encryption).decryptCBC(cryptogram, iv: iv)
        let uid = Array(plain.prefix(7))
        #expect(uid == card.realUID)
        #expect(plain[7] == 0x80)
    }

    @Test("a wrong MAC or a stale counter is 91 1E and ends the session; a wrong key is 91 AE")
    func refusals() throws {
        var card = Self.card()
        var (host, _) = try Self.authenticate(&card)
        var forged = try host.commandMAC(0x64, [0x00])
        forged[0] ^= 0x01
        #expect(card.send(0x64, [0x00] + forged).status == 0x1E)
        // The session is gone: even a correct MAC is refused now.
        #expect(card.send(0x64, [0x00] + (try host.commandMAC(0x64, [0x00]))).status != 0x00)

        (host, _) = try Self.authenticate(&card)
        host.counter = 5
        #expect(card.send(0x64, [0x00] + (try host.commandMAC(0x64, [0x00]))).status == 0x1E)

        let wrongKey = [UInt8](repeating: 0x11, count: 16)
        let (_, refused) = try Self.authenticate(&card, key: wrongKey)
        #expect(refused.status == 0xAE)
    }
}
