import Crypto
import Testing

@testable import CardFlowSimulator
@testable import CardFlowSimulatorCards

/// Ed25519 public keys and signatures (spec §6).
@Suite("TON card: Ed25519")
struct TONCardSigningTests {
    typealias S = TONTestSession

    static func publicKey(_ index: String, _ session: inout S) -> (data: [UInt8], sw: UInt16) {
        session.send([0xB0, 0xA0, 0x00, 0x00, UInt8(index.utf8.count)] + Array(index.utf8) + [0x20])
    }

    static func signIndexed(_ message: [UInt8], index: String, _ session: inout S) -> (data: [UInt8], sw: UInt16) {
        let digits = Array(index.utf8)
        return session.protected(
            0xA3, payload: [0, UInt8(message.count)] + message + [UInt8(digits.count)] + digits, le: 0x40)
    }

    @Test func publicKeysAndSignaturesVerifyWithSwiftCrypto() throws {
        var session = S.activated()
        let defaultKey = session.send(bytes("B0A7000020"))
        #expect(defaultKey.sw == 0x9000 && defaultKey.data.count == 32)
        #expect(Self.publicKey("0", &session) == defaultKey, "default path ≡ index 0")
        let key171 = Self.publicKey("171", &session)
        #expect(key171.sw == 0x9000 && key171.data != defaultKey.data)
        #expect(Self.publicKey("2147483647", &session).sw == 0x9000)

        let message: [UInt8] = Array("TON transfer".utf8)
        let signature = session.protected(0xA5, payload: [0, UInt8(message.count)] + message, le: 0x40)
        #expect(signature.sw == 0x9000 && signature.data.count == 64)
        let verifier = try Curve25519.Signing.PublicKey(rawRepresentation: defaultKey.data)
        #expect(verifier.isValidSignature(signature.data, for: message))

        let indexed = Self.signIndexed(message, index: "171", &session)
        #expect(indexed.sw == 0x9000)
        let verifier171 = try Curve25519.Signing.PublicKey(rawRepresentation: key171.data)
        #expect(verifier171.isValidSignature(indexed.data, for: message))
        #expect(!verifier.isValidSignature(indexed.data, for: message))

        let zero = Self.signIndexed(message, index: "0", &session)
        #expect(verifier.isValidSignature(zero.data, for: message))
    }

    @Test func keysAreDeterministicPerSeedAndChangeWithTheRootSeed() {
        var a = S.activated(seed: 5)
        var b = S.activated(seed: 5)
        var c = S.activated(seed: 6)
        let keyA = a.send(bytes("B0A7000020")).data
        #expect(keyA == b.send(bytes("B0A7000020")).data)
        #expect(keyA != c.send(bytes("B0A7000020")).data)
    }

    @Test func messageAndIndexLimits() {
        var session = S.activated()
        let long = [UInt8](repeating: 7, count: 189)
        #expect(session.protected(0xA5, payload: [0, 189] + long, le: 0x40).sw == 0x9000)
        #expect(session.protected(0xA5, payload: [0, 190] + long, le: 0x40).sw == 0x6700, "L 190")
        #expect(session.protected(0xA5, payload: [0, 0], le: 0x40).sw == 0x6700)
        #expect(session.protected(0xA5, payload: [1, 1, 7], le: 0x40).sw == 0x6700)
        #expect(session.protected(0xA5, payload: [0, 2, 7], le: 0x40).sw == 0x6700, "L ≠ message length")
        #expect(session.protected(0xA5, payload: [0, 1, 7], le: 0x00).sw == 0x6700, "Le must be 40")
        #expect(Self.signIndexed([UInt8](repeating: 1, count: 178), index: "1", &session).sw == 0x9000)
        #expect(Self.signIndexed([UInt8](repeating: 1, count: 179), index: "1", &session).sw == 0x6700)
        #expect(Self.signIndexed([1], index: "12345678901", &session).sw == 0x6700)
        #expect(Self.signIndexed([1], index: "1a", &session).sw == 0x6F04)
        #expect(Self.signIndexed([1], index: "2147483648", &session).sw == 0x6F04)
        #expect(Self.publicKey("12345678901", &session).sw == 0x6700)
        #expect(Self.publicKey("x", &session).sw == 0x6F03)
        #expect(Self.publicKey("2147483648", &session).sw == 0x6F03)
        #expect(session.send(bytes("B0A0000001 31 40")).sw == 0x6700, "Le must be 20")
        #expect(session.send(bytes("B0A0000020")).sw == 0x6700, "no index")
    }

    @Test func signingNeedsAVerifiedPIN() {
        var session = S(card: SimulatedTONCard(seed: 8))
        session.activate()
        #expect(session.protected(0xA5, payload: [0, 1, 0x42], le: 0x40).sw == 0x6F04)
        #expect(session.send(bytes("B0A7000020")).sw == 0x9000, "public keys need no PIN")
        #expect(session.protected(0xA2, payload: Array("5555".utf8)).sw == 0x9000)
        #expect(session.sw(S.selectTON) == 0x9000)
        #expect(session.protected(0xA5, payload: [0, 1, 0x42], le: 0x40).sw == 0x9000, "re-SELECT keeps it")
        #expect(session.protected(0xA5, payload: [0, 1, 0x42], le: 0x40).sw == 0x9000, "not one-shot")
        #expect(session.protected(0xA2, payload: Array("5556".utf8)).sw == 0x6F07)
        #expect(session.protected(0xA5, payload: [0, 1, 0x42], le: 0x40).sw == 0x6F04, "a wrong PIN clears it")
        #expect(session.protected(0xA2, payload: Array("5555".utf8)).sw == 0x9000)
        session.card.powerOn()
        _ = session.sw(S.selectTON)
        #expect(session.protected(0xA5, payload: [0, 1, 0x42], le: 0x40).sw == 0x6F04, "power-off clears it")
    }
}
