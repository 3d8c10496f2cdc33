import Crypto
import Testing

@testable import CardFlowSimulator
@testable import CardFlowSimulatorCards

/// Recovery data (spec §5).
@Suite("TON card: recovery data")
struct TONCardRecoveryDataTests {
    typealias S = TONTestSession

    static func add(_ data: [UInt8], to session: inout S, part: Int = 250, hash: [UInt8]? = nil) -> UInt16 {
        var offset = 0
        while offset < data.count {
            let chunk = Array(data[offset..<min(data.count, offset + part)])
            let sw = session.sw([0xB0, 0xD1, offset == 0 ? 0 : 1, 0x00, UInt8(chunk.count)] + chunk)
            guard sw == 0x9000 else { return sw }
            offset += chunk.count
        }
        let digest = hash ?? Array(SHA256.hash(data: data))
        return session.sw([0xB0, 0xD1, 0x02, 0x00, 0x20] + digest)
    }

    static func read(length: Int, from session: inout S) -> [UInt8] {
        var out: [UInt8] = []
        while out.count < length {
            let n = min(250, length - out.count)
            let result = session.send([0xB0, 0xD2, 0, 0, 2, UInt8(out.count >> 8), UInt8(out.count & 0xFF), UInt8(n)])
            guard result.sw == 0x9000 else { return out }
            out += result.data
        }
        return out
    }

    @Test func roundTrip() {
        var session = S.activated()
        #expect(session.send(bytes("B0D6000001")) == ([0], 0x9000))
        #expect(session.sw(bytes("B0D4000002")) == 0x6F0D)
        #expect(session.sw(bytes("B0D3000020")) == 0x6F0D)
        #expect(session.sw(bytes("B0D200000200 0010")) == 0x6F0D)
        let data = (0..<777).map { UInt8(($0 * 7) % 256) }
        #expect(Self.add(data, to: &session) == 0x9000)
        #expect(session.send(bytes("B0D6000001")) == ([1], 0x9000))
        #expect(session.send(bytes("B0D4000002")) == ([0x03, 0x09], 0x9000))
        #expect(session.send(bytes("B0D3000020")) == (Array(SHA256.hash(data: data)), 0x9000))
        #expect(Self.read(length: 777, from: &session) == data)
        #expect(session.sw([0xB0, 0xD1, 0x00, 0x00, 0x01, 0x00]) == 0x6F0C, "already set")
        // Reading past the data inside the buffer is allowed; past 2048 is not.
        #expect(session.send(bytes("B0D2000002 07F8 08")) == ([UInt8](repeating: 0, count: 8), 0x9000))
        #expect(session.sw(bytes("B0D2000002 07F8 09")) == 0x6F0A)
        #expect(session.sw(bytes("B0D2000002 8000 01")) == 0x6F0A)
        #expect(session.sw(bytes("B0D2000001 00 01")) == 0x6700)
        #expect(session.sw(bytes("B0D2000002 0000")) == 0x6700, "no Le")
        #expect(session.sw(bytes("B0D4000000")) == 0x6700)
        // Survives power-off, reset clears.
        session.card.powerOn()
        _ = session.sw(S.selectTON)
        #expect(session.send(bytes("B0D4000002")).data == [0x03, 0x09])
        #expect(session.sw(bytes("B0D50000")) == 0x9000)
        #expect(session.send(bytes("B0D6000001")) == ([0], 0x9000))
        #expect(Self.add([1, 2, 3], to: &session) == 0x9000)
        #expect(session.send(bytes("B0D4000002")).data == [0, 3])
    }

    @Test func limitsAndWrongHash() {
        var session = S.activated()
        let full = [UInt8](repeating: 0x5A, count: 2048)
        #expect(Self.add(full, to: &session, part: 255) == 0x9000)
        #expect(Self.read(length: 2048, from: &session) == full)
        _ = session.sw(bytes("B0D50000"))
        #expect(Self.add(full + [1], to: &session) == 0x6700, "2049 bytes")
        var wrong = Array(SHA256.hash(data: [1, 2]))
        wrong[0] ^= 1
        #expect(Self.add([1, 2], to: &session, hash: wrong) == 0x6F0B)
        #expect(session.send(bytes("B0D6000001")).data == [0])
        #expect(session.sw([0xB0, 0xD1, 0x02, 0x00, 0x1F] + [UInt8](repeating: 0, count: 31)) == 0x6700)
        #expect(Self.add([1, 2], to: &session) == 0x9000)
        #expect(session.sw(bytes("B0D2000002 0000 00")) == 0x9000, "Le 00 = 256 bytes inside the buffer")
    }

    @Test func availableInStateDeletingToo() {
        var session = TONCardKeychainTests.withKeys([[1], [2]])
        _ = session.protected(0xB7, payload: [0, 0], le: 2)
        #expect(session.state == 0x37)
        #expect(Self.add([9, 9, 9], to: &session) == 0x9000)
        #expect(session.send(bytes("B0D4000002")).data == [0, 3])
    }
}
