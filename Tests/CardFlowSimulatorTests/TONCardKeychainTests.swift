import Testing

@testable import CardFlowSimulator
@testable import CardFlowSimulatorCards

/// The keychain module (spec §4) through raw APDUs.
@Suite("TON card: keychain")
struct TONCardKeychainTests {
    typealias S = TONTestSession

    static func u16(_ value: Int) -> [UInt8] { [UInt8(value >> 8), UInt8(value & 0xFF)] }

    /// Adds `key` in chunks of `chunk` bytes; returns the final SW and data.
    @discardableResult
    static func add(_ key: [UInt8], to session: inout S, chunk: Int = 128) -> (data: [UInt8], sw: UInt16) {
        let check = session.protected(0xB3, payload: u16(key.count))
        guard check.sw == 0x9000 else { return check }
        var offset = 0
        while offset < key.count {
            let part = Array(key[offset..<min(key.count, offset + chunk)])
            let result = session.protected(0xB4, p1: offset == 0 ? 0 : 1, payload: [UInt8(part.count)] + part)
            guard result.sw == 0x9000 else { return result }
            offset += part.count
        }
        return session.protected(0xB4, p1: 2, payload: S.mac(key), le: 2)
    }

    static func withKeys(_ keys: [[UInt8]], seed: UInt64 = 42) -> S {
        var session = S(card: SimulatedTONCard(seed: seed))
        session.activate()
        for key in keys { add(key, to: &session) }
        return session
    }

    static func read(index: Int, length: Int, from session: inout S, chunk: Int = 128) -> [UInt8] {
        var out: [UInt8] = []
        while out.count < length {
            let n = min(chunk, length - out.count)
            let result = session.protected(0xB2, payload: u16(index) + u16(out.count), le: UInt8(n))
            guard result.sw == 0x9000 else { return out }
            out += result.data
        }
        return out
    }

    /// The Android deletion flow: B7, BE until 01, BF until 01. Returns the number of calls.
    static func delete(index: Int, from session: inout S) -> (length: [UInt8], chunks: Int, records: Int) {
        let initiated = session.protected(0xB7, payload: u16(index), le: 2)
        #expect(initiated.sw == 0x9000)
        let (chunks, records) = finishDelete(&session)
        return (initiated.data, chunks, records)
    }

    /// BE until 01, then BF until 01; the numbers of calls.
    static func finishDelete(_ session: inout S) -> (chunks: Int, records: Int) {
        var chunks = 0
        var records = 0
        while chunks < 1000 {
            chunks += 1
            if session.protected(0xBE, le: 1).data == [1] { break }
        }
        while records < 1000 {
            records += 1
            if session.protected(0xBF, le: 1).data == [1] { break }
        }
        return (chunks, records)
    }

    @Test func documentedKeyIDUnderVectorA() {
        var session = Self.withKeys([])
        let key = bytes("001122334455")
        #expect(Self.add(key, to: &session) == ([0, 1], 0x9000))
        #expect(
            session.protected(0xBB, payload: [0, 0], le: 0x22).data
                == bytes("D7E0DFB66A2F72AAD7D66D897C805D307EE1F1CB8077D3B8CF1A942D6A5AC2FF") + [0, 6])
    }

    @Test func fullSession() {
        var session = Self.withKeys([])
        let keyA = (0..<300).map { UInt8($0 % 251) }
        let keyB = [UInt8](repeating: 0xB0, count: 5)
        let keyC = (0..<129).map { UInt8(255 - $0) }
        #expect(Self.add(keyA, to: &session) == ([0, 1], 0x9000))
        #expect(Self.add(keyB, to: &session, chunk: 189) == ([0, 2], 0x9000))
        #expect(Self.add(keyC, to: &session, chunk: 100) == ([0, 3], 0x9000))
        #expect(session.protected(0xB8, le: 2).data == [0, 3])
        #expect(session.protected(0xBA, le: 2).data == Self.u16(434))
        #expect(session.protected(0xB9, le: 2).data == Self.u16(32767 - 434))
        // Index and length by MAC, MAC and length by index, consistency.
        #expect(session.protected(0xB1, payload: S.mac(keyB), le: 4) == ([0, 1, 0, 5], 0x9000))
        #expect(session.protected(0xB1, payload: S.mac([9]), le: 4).sw == 0x7F00)
        #expect(session.protected(0xBB, payload: [0, 2], le: 0x22) == (S.mac(keyC) + [0, 129], 0x9000))
        #expect(session.protected(0xBB, payload: [0, 3], le: 0x22).sw == 0x7F00)
        #expect(session.protected(0xB0, payload: S.mac(keyA)).sw == 0x9000)
        #expect(session.protected(0xB0, payload: S.mac([1])).sw == 0x7F00)
        // Reading.
        #expect(Self.read(index: 0, length: 300, from: &session) == keyA)
        #expect(Self.read(index: 2, length: 129, from: &session, chunk: 255) == keyC)
        #expect(session.protected(0xB2, payload: [0, 1, 0, 4], le: 2).sw == 0x7F01)
        #expect(session.protected(0xB2, payload: [0, 1, 0, 0], le: 0).sw == 0x7F01, "Le 00 = 256 bytes")
        #expect(session.protected(0xB2, payload: [0, 1, 0, 0]).sw == 0x7F01, "no Le")
        #expect(session.protected(0xB2, payload: [0, 3, 0, 0], le: 1).sw == 0x7F00)
        // Change key B (same length).
        let newB = [UInt8](repeating: 0xB1, count: 5)
        #expect(session.protected(0xB5, payload: [0, 1]).sw == 0x9000)
        #expect(session.protected(0xB6, p1: 0, payload: [3, 0xB1, 0xB1, 0xB1]).sw == 0x9000)
        #expect(session.protected(0xB6, p1: 2, payload: S.mac(newB), le: 2).sw == 0x7F05, "not all received")
        #expect(session.protected(0xB6, p1: 1, payload: [3, 0xB1, 0xB1, 0xB1]).sw == 0x7F02, "too long")
        #expect(session.protected(0xB6, p1: 1, payload: [2, 0xB1, 0xB1]).sw == 0x9000)
        #expect(session.protected(0xB6, p1: 2, payload: S.mac(keyB), le: 2).sw == 0x8F02, "MAC of other bytes")
        #expect(session.protected(0xB6, p1: 2, payload: S.mac(newB), le: 2) == ([0, 3], 0x9000))
        #expect(session.protected(0xB6, p1: 2, payload: S.mac(newB), le: 2).sw == 0x7F07, "index consumed")
        #expect(Self.read(index: 1, length: 5, from: &session) == newB)
        #expect(session.protected(0xB5, payload: [0, 3]).sw == 0x7F00)
        #expect(session.protected(0xB6, p1: 0, payload: [1, 0]).sw == 0x7F07)
        // Delete the first key: 2-phase, 434 − 300 = 134 bytes to move ⇒ 1 full packet + tail.
        let (length, chunks, records) = Self.delete(index: 0, from: &session)
        #expect(length == Self.u16(300))
        #expect(chunks == 2)
        #expect(records == 1)
        #expect(session.state == 0x17)
        #expect(session.protected(0xB8, le: 2).data == [0, 2])
        #expect(session.protected(0xBA, le: 2).data == Self.u16(134))
        #expect(Self.read(index: 0, length: 5, from: &session) == newB)
        #expect(Self.read(index: 1, length: 129, from: &session) == keyC)
        #expect(session.protected(0xB1, payload: S.mac(keyC), le: 4) == ([0, 1, 0, 129], 0x9000))
        // Delete the last key: the applet reports a stale length.
        let last = Self.delete(index: 1, from: &session)
        #expect(last.length == Self.u16(300), "stale lenToDelete (spec §10.2)")
        #expect(last.chunks == 1 && last.records == 1)
        #expect(session.protected(0xB8, le: 2).data == [0, 1])
        #expect(Self.read(index: 0, length: 5, from: &session) == newB)
        // Reset.
        #expect(session.protected(0xBC).sw == 0x9000)
        #expect(session.protected(0xB8, le: 2).data == [0, 0])
        #expect(session.protected(0xB9, le: 2).data == Self.u16(32767))
    }

    @Test func deletionStateAndCounters() {
        let keys = (0..<30).map { i in [UInt8](repeating: UInt8(i), count: 100 + i) }
        var session = Self.withKeys(keys)
        #expect(session.protected(0xB8, le: 2).data == Self.u16(30))
        #expect(session.protected(0xBE, le: 1).sw == 0x6D00, "not in state 17")
        #expect(session.protected(0xB7, payload: Self.u16(30), le: 2).sw == 0x7F00)
        #expect(session.protected(0xB7, payload: Self.u16(2), le: 2) == (Self.u16(102), 0x9000))
        #expect(session.state == 0x37)
        // Total = Σ(100…129) = 3435; next key at 100+101+102 = 303 ⇒ 3132 bytes = 24 × 128 + 60.
        #expect(session.protected(0xE1, le: 2).data == Self.u16(24))
        // 27 following records ⇒ 2 × 12 + 3.
        #expect(session.protected(0xE2, le: 2).data == Self.u16(2))
        #expect(session.protected(0xB7, payload: Self.u16(2), le: 2).sw == 0x6D00, "B7 is state 17 only")
        #expect(session.protected(0xB3, payload: [0, 1]).sw == 0x6D00)
        #expect(
            session.sw([0xB0, 0xBF, 0, 0, 0x40] + [UInt8](repeating: 0, count: 64) + [1]) == 0x7F09,
            "records before chunks, checked before the HMAC")
        for call in 1...25 {
            let result = session.protected(0xBE, le: 1)
            #expect(result.data == [call == 25 ? 1 : 0], "chunk call \(call)")
            if call == 3 { #expect(session.protected(0xE3, le: 2).data == Self.u16(3)) }
        }
        #expect(session.protected(0xBE, le: 1).data == [1], "after done")
        // Interrupted here: the state survives a power cycle.
        session.card.powerOn()
        #expect(session.sw(S.selectTON) == 0x9000)
        #expect(session.state == 0x37)
        for call in 1...3 {
            #expect(session.protected(0xBF, le: 1).data == [call == 3 ? 1 : 0], "record call \(call)")
        }
        #expect(session.state == 0x17)
        var expected = keys
        expected.remove(at: 2)
        #expect(session.protected(0xB8, le: 2).data == Self.u16(29))
        for (index, key) in expected.enumerated() {
            #expect(
                session.protected(0xBB, payload: Self.u16(index), le: 0x22) == (
                    S.mac(key) + Self.u16(key.count), 0x9000
                ))
        }
        #expect(Self.read(index: 28, length: 129, from: &session) == keys[29])
        #expect(Self.read(index: 2, length: 103, from: &session) == keys[3])
        // RESET_KEYCHAIN from state 37.
        #expect(session.protected(0xB7, payload: Self.u16(0), le: 2).sw == 0x9000)
        #expect(session.protected(0xBC).sw == 0x9000)
        #expect(session.state == 0x17)
        #expect(session.protected(0xB8, le: 2).data == [0, 0])
    }

    @Test func addErrors() {
        var session = Self.withKeys([[1, 2, 3]])
        #expect(session.protected(0xB4, p1: 0, payload: [1, 9]).sw == 0x7F04, "no size announced")
        #expect(session.protected(0xB3, payload: Self.u16(0)).sw == 0x6700)
        #expect(session.protected(0xB3, payload: Self.u16(8193)).sw == 0x6700)
        #expect(session.protected(0xB3, payload: Self.u16(4)).sw == 0x9000)
        #expect(session.protected(0xB4, p1: 0, payload: [0]).sw == 0x6700, "empty chunk")
        #expect(session.protected(0xB4, p1: 0, payload: [5, 1, 2, 3, 4, 5]).sw == 0x7F02)
        #expect(session.protected(0xB4, p1: 0, payload: [2, 1, 2]).sw == 0x9000)
        #expect(session.protected(0xB4, p1: 2, payload: S.mac([1, 2, 3, 4]), le: 2).sw == 0x7F05)
        #expect(session.protected(0xB4, p1: 1, payload: [2, 3, 4]).sw == 0x9000)
        #expect(session.protected(0xB4, p1: 2, payload: S.mac([1, 2, 3, 5]), le: 2).sw == 0x8F02)
        #expect(session.protected(0xB4, p1: 2, payload: S.mac([1, 2, 3, 4]), le: 1).sw == 0x6700)
        #expect(session.protected(0xB4, p1: 2, payload: S.mac([1, 2, 3, 4]), le: 2) == ([0, 2], 0x9000))
        #expect(Self.add([1, 2, 3], to: &session).sw == 0x7F06, "same key, same MAC")
        #expect(session.protected(0xB8, le: 2).data == [0, 2])
    }

    @Test func storageAndCountLimits() {
        var session = Self.withKeys([])
        // Fill 32767 bytes: three 8192-byte keys and one of 8191.
        for i in 0..<3 {
            #expect(Self.add([UInt8](repeating: UInt8(i + 1), count: 8192), to: &session, chunk: 189).sw == 0x9000)
        }
        #expect(session.protected(0xB3, payload: Self.u16(8192)).sw == 0x7F03)
        #expect(Self.add([UInt8](repeating: 9, count: 8191), to: &session, chunk: 189).sw == 0x9000)
        #expect(session.protected(0xB9, le: 2).data == [0, 0])
        #expect(session.protected(0xB3, payload: Self.u16(1)).sw == 0x7F03)
        #expect(Self.read(index: 3, length: 8191, from: &session, chunk: 255) == [UInt8](repeating: 9, count: 8191))

        // 1023 keys of 1–2 bytes (written straight into the model, then checked through APDUs).
        var full = Self.withKeys([])
        for i in 0..<1023 {
            let key = [UInt8(i & 0xFF), UInt8(i >> 8)]
            full.card.keychain.append(key, mac: S.mac(key))
        }
        #expect(full.protected(0xB8, le: 2).data == Self.u16(1023))
        let maxed = S.protectedAPDU(0xB3, payload: [0, 1], sault: full.card.sault, le: nil)
        #expect(full.sw(maxed) == 0x7F08)
        #expect(full.sw(maxed) == 0x7F08, "checked before the HMAC: the sault is still good")
        #expect(full.protected(0xB4, p1: 0, payload: [1, 1]).sw == 0x7F08)
        // Delete key 500 of 1023: 522 records to shift ⇒ 43 full packets + 6.
        #expect(full.protected(0xB7, payload: Self.u16(500), le: 2) == ([0, 2], 0x9000))
        #expect(full.protected(0xE2, le: 2).data == Self.u16(43))
        let (chunks, records) = Self.finishDelete(&full)
        #expect(chunks == 9, "(2046 − 1002) bytes = 8 × 128 + 20")
        #expect(records == 44)
        #expect(full.protected(0xB8, le: 2).data == Self.u16(1022))
        #expect(full.protected(0xB1, payload: S.mac([0xF4, 0x01]), le: 4).sw == 0x7F00)
        #expect(full.protected(0xB1, payload: S.mac([0xF5, 0x01]), le: 4) == ([0x01, 0xF4, 0, 2], 0x9000))
        #expect(Self.read(index: 1021, length: 2, from: &full) == [0xFE, 0x03])
    }

    @Test func changeEdgeCases() {
        // A fresh applet's change index is 0 (not −1): with no key there, chunks do not fit.
        var fresh = Self.withKeys([])
        #expect(fresh.protected(0xB6, p1: 0, payload: [1, 1]).sw == 0x7F02)
        #expect(fresh.protected(0xB6, p1: 2, payload: S.mac([1]), le: 2).sw == 0x8F02, "0 of 0 bytes received")
        #expect(
            fresh.protected(0xB6, p1: 2, payload: S.mac([]), le: 2) == ([0, 0], 0x9000),
            "the applet's quirk: an empty change of the absent key 0 succeeds as a no-op")
        #expect(fresh.protected(0xB6, p1: 2, payload: S.mac([]), le: 2).sw == 0x7F07)
        // Changing a key to itself: the MAC exists already.
        var session = Self.withKeys([[1, 2], [3, 4]])
        #expect(session.protected(0xB5, payload: [0, 0]).sw == 0x9000)
        #expect(session.protected(0xB6, p1: 0, payload: [2, 1, 2]).sw == 0x9000)
        #expect(session.protected(0xB6, p1: 2, payload: S.mac([1, 2]), le: 2).sw == 0x7F06)
        // Changing to another existing key's bytes: same.
        #expect(session.protected(0xB6, p1: 0, payload: [2, 3, 4]).sw == 0x9000)
        #expect(session.protected(0xB6, p1: 2, payload: S.mac([3, 4]), le: 2).sw == 0x7F06)
        #expect(session.protected(0xB6, p1: 0, payload: [2, 5, 6]).sw == 0x9000)
        #expect(session.protected(0xB6, p1: 2, payload: S.mac([5, 6]), le: 2) == ([0, 2], 0x9000))
        #expect(session.protected(0xB1, payload: S.mac([5, 6]), le: 4) == ([0, 0, 0, 2], 0x9000))
        #expect(session.protected(0xB0, payload: S.mac([5, 6])).sw == 0x9000)
        #expect(session.protected(0xB1, payload: S.mac([1, 2]), le: 4).sw == 0x7F00)
    }

    @Test func deleteTheOnlyKeyAndTwelveAlignedRecords() {
        var single = Self.withKeys([[7, 7, 7]])
        let (length, chunks, records) = Self.delete(index: 0, from: &single)
        #expect(length == [0, 0], "stale length of a fresh applet")
        #expect(chunks == 1 && records == 1)
        #expect(single.protected(0xB8, le: 2).data == [0, 0])
        #expect(single.protected(0xBA, le: 2).data == [0, 0])
        #expect(Self.add([7, 7, 7], to: &single) == ([0, 1], 0x9000), "the same key can be added again")

        // 13 keys, delete index 0: 12 following records ⇒ 1 packet + an empty tail ⇒ 2 calls.
        let keys = (0..<13).map { [UInt8($0), 0xEE] }
        var session = Self.withKeys(keys)
        #expect(session.protected(0xB7, payload: [0, 0], le: 2) == ([0, 2], 0x9000))
        #expect(session.protected(0xE2, le: 2).data == [0, 1])
        #expect(session.protected(0xE1, le: 2).data == [0, 0], "24 bytes to move: no full packet")
        #expect(
            session.protected(0xB2, payload: [0, 12, 0, 0], le: 2) == ([12, 0xEE], 0x9000), "readable mid-deletion")
        let finished = Self.finishDelete(&session)
        #expect(finished.chunks == 1 && finished.records == 2)
        #expect(session.protected(0xE4, le: 2).sw == 0x6D00, "back in state 17")
        for index in 0..<12 {
            #expect(Self.read(index: index, length: 2, from: &session) == keys[index + 1])
        }
    }

    @Test func nothingSelectedOrWrongApplet() {
        var session = S()
        #expect(session.sw(bytes("80CB800005DFFF02810300")) == 0x6985)
        #expect(session.sw(bytes("00B0000001")) == 0x6985)
        #expect(session.sw(bytes("00A4000C023F00")) == 0x6A86)
    }

    @Test func resetKeychainForgetsTheKeyToChangeButNotTheLastDeletionLength() {
        var session = Self.withKeys([[1, 2, 3], [4, 5]])
        _ = Self.delete(index: 0, from: &session)
        #expect(session.protected(0xB5, payload: [0, 0]).sw == 0x9000)
        #expect(session.protected(0xBC).sw == 0x9000)
        #expect(session.protected(0xB6, p1: 0, payload: [1, 9]).sw == 0x7F07)
        #expect(Self.add([6], to: &session) == ([0, 1], 0x9000))
        #expect(session.protected(0xB7, payload: [0, 0], le: 2) == ([0, 3], 0x9000), "stale since before the reset")
    }

    @Test func orderOfChecks() {
        var session = Self.withKeys([[1, 2, 3]])
        #expect(session.protected(0xBB, payload: [0, 9], le: 0x20).sw == 0x6700, "GET_HMAC: Le before the index")
        #expect(session.protected(0xB1, payload: S.mac([7]), le: 2).sw == 0x6700, "GET_KEY_INDEX: Le before the search")
        #expect(session.protected(0xB7, payload: [0, 9], le: 1).sw == 0x7F00, "INITIATE_DELETE: index before Le")
        #expect(session.protected(0xB7, payload: [0, 0], le: 1).sw == 0x6700)
        #expect(session.state == 0x17)
        #expect(
            session.protected(0xB2, payload: [0, 9, 0, 0], le: 0).sw == 0x7F00, "GET_KEY_CHUNK: index before range")
        // INITIATE_CHANGE keeps the received count: a P1 01 chunk continues it.
        #expect(session.protected(0xB5, payload: [0, 0]).sw == 0x9000)
        #expect(session.protected(0xB6, p1: 0, payload: [2, 8, 8]).sw == 0x9000)
        #expect(session.protected(0xB5, payload: [0, 0]).sw == 0x9000)
        #expect(session.protected(0xB6, p1: 1, payload: [2, 8, 8]).sw == 0x7F02, "2 + 2 > 3")
    }
}
