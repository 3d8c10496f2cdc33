import CardFlow
import Testing

@testable import CardFlowTONCard

/// Truncated or out-of-range answers become library errors, never traps.
@Suite("TON client: malformed card answers")
struct TONMalformedResponseTests {
    let sault = [UInt8](repeating: 0x22, count: 32)

    func protected(_ ins: TONInstruction, p1: UInt8 = 0, _ payload: [UInt8] = [], le: Int? = nil, answer: String) throws
        -> [(String?, String)]
    {
        try protectedSteps(ins, p1: p1, payload, le: le, sault: sault, answer: answer)
    }

    func wallet(_ script: [(String?, String)]) async throws -> (TONWallet, ScriptedChannel) {
        let channel = ScriptedChannel(script)
        return (TONWallet(channel: channel, hmacKeys: try await VectorA.keys()), channel)
    }

    @Test func shortSaultSerialAndHashes() async throws {
        let (wallet, channel) = try await wallet([
            (selectTON, ok), (appInfo, "17" + ok), (getSault, "0011" + ok),
            (selectTON, ok), (appInfo, "17" + ok), (serial, "0500" + ok),
            (selectTON, ok), (appInfo, "27" + ok), ("B095000020", "00" + ok),
            (selectTON, ok), (appInfo, "27" + ok), ("B093000020", ok),
            (selectTON, ok), (appInfo, ok),
        ])
        await #expect(throws: TONError.library(code: 40000, detail: "2.")) { try await wallet.sault() }
        await #expect(throws: TONError.library(code: 40037)) { try await wallet.serialNumber() }
        await #expect(throws: TONError.library(code: 40009)) { try await wallet.hashOfEncryptedCommonSecret() }
        await #expect(throws: TONError.library(code: 40008)) { try await wallet.hashOfEncryptedPassword() }
        await #expect(throws: TONError.library(code: 40001, detail: "0.")) { try await wallet.appletState() }
        #expect(await channel.remaining == 0)
    }

    @Test func shortSignatureAndPublicKey() async throws {
        let message: [UInt8] = [7]
        var script: [(String?, String)] = [(selectTON, ok), (appInfo, "17" + ok), (serial, VectorA.serialWire + ok)]
        script += try protected(
            .signShortMessageForDefaultPath, [0, 1, 7], le: 0x40, answer: String(repeating: "AA", count: 63) + ok)
        script += [
            (selectTON, ok), (appInfo, "17" + ok),
            ("B0A0000001" + "30" + "20", String(repeating: "AA", count: 33) + ok),
        ]
        let (wallet, channel) = try await wallet(script)
        await #expect(throws: TONError.library(code: 40012)) { try await wallet.signForDefaultPath(message) }
        await #expect(throws: TONError.library(code: 40013)) {
            try await wallet.publicKey(hdIndex: try TONHDIndex("0"))
        }
        #expect(await channel.remaining == 0)
    }

    @Test func keychainAnswers() async throws {
        let id = [UInt8](repeating: 0x33, count: 32)
        var script: [(String?, String)] = [(selectTON, ok), (appInfo, "17" + ok), (serial, VectorA.serialWire + ok)]
        script += try protected(.getNumberOfKeys, le: 2, answer: "01" + ok)
        script += [(selectTON, ok), (appInfo, "17" + ok), (serial, VectorA.serialWire + ok)]
        script += try protected(.getNumberOfKeys, le: 2, answer: "0400" + ok)
        script += [(selectTON, ok), (appInfo, "17" + ok), (serial, VectorA.serialWire + ok)]
        script += try protected(.getKeyIndexAndLength, id, le: 4, answer: "000000" + ok)
        script += [(selectTON, ok), (appInfo, "17" + ok), (serial, VectorA.serialWire + ok)]
        script += try protected(.getKeyIndexAndLength, id, le: 4, answer: "03FF0001" + ok)
        script += [(selectTON, ok), (appInfo, "17" + ok), (serial, VectorA.serialWire + ok)]
        script += try protected(.getKeyIndexAndLength, id, le: 4, answer: "00002001" + ok)
        script += [(selectTON, ok), (appInfo, "17" + ok), (serial, VectorA.serialWire + ok)]
        script += try protected(.getKeyIndexAndLength, id, le: 4, answer: "00000003" + ok)
        script += try protected(.getKeyChunk, [0, 0, 0, 0], le: 3, answer: "0102" + ok)
        script += [(selectTON, ok), (appInfo, "17" + ok), (serial, VectorA.serialWire + ok)]
        script += try protected(.getKeyIndexAndLength, id, le: 4, answer: "00000003" + ok)
        script += [(appInfo, "17" + ok)]
        script += try protected(.initiateDeleteKey, [0, 0], le: 2, answer: "03" + ok)
        script += [(selectTON, ok), (appInfo, "17" + ok), (serial, VectorA.serialWire + ok)]
        script += try protected(.getNumberOfKeys, le: 2, answer: "0001" + ok)
        script += try protected(.getHmac, [0, 0], le: 0x22, answer: String(repeating: "33", count: 33) + ok)
        script += [(selectTON, ok), (appInfo, "17" + ok), (serial, VectorA.serialWire + ok)]
        script += try protected(.getKeyIndexAndLength, id, le: 4, answer: "00000003" + ok)
        script += [(appInfo, "17" + ok)]
        script += try protected(.initiateDeleteKey, [0, 0], le: 2, answer: "0003" + ok)
        script += try protected(.deleteKeyChunk, le: 1, answer: ok)
        let (wallet, channel) = try await wallet(script)
        await #expect(throws: TONError.library(code: 40014)) { try await wallet.numberOfKeys() }
        await #expect(throws: TONError.library(code: 40015)) { try await wallet.numberOfKeys() }
        await #expect(throws: TONError.library(code: 40020)) { try await wallet.keyLocation(hmac: id) }
        await #expect(throws: TONError.library(code: 40021)) { try await wallet.keyLocation(hmac: id) }
        await #expect(throws: TONError.library(code: 40022)) { try await wallet.keyLocation(hmac: id) }
        await #expect(throws: TONError.library(code: 40036, detail: "3.")) { try await wallet.key(hmac: id) }
        await #expect(throws: TONError.library(code: 40035)) { try await wallet.deleteKey(hmac: id) }
        await #expect(throws: TONError.library(code: 40034)) { try await wallet.keychainKeys() }
        await #expect(throws: TONError.library(code: 40023)) { try await wallet.deleteKey(hmac: id) }
        #expect(await channel.remaining == 0)
    }

    @Test func recoveryAnswers() async throws {
        let (wallet, channel) = try await wallet([
            (selectTON, ok), (appInfo, "17" + ok), ("B0D6000001", "02" + ok),
            (selectTON, ok), (appInfo, "17" + ok), ("B0D3000020", "00" + ok),
            (selectTON, ok), (appInfo, "17" + ok), ("B0D4000002", "00" + ok),
            (selectTON, ok), (appInfo, "17" + ok), ("B0D4000002", "0000" + ok),
            (selectTON, ok), (appInfo, "17" + ok), ("B0D4000002", "0003" + ok), ("B0D200000200000" + "3", "0102" + ok),
        ])
        await #expect(throws: TONError.library(code: 40006)) { try await wallet.isRecoveryDataSet() }
        await #expect(throws: TONError.library(code: 40003)) { try await wallet.recoveryDataHash() }
        await #expect(throws: TONError.library(code: 40004)) { try await wallet.recoveryDataLength() }
        await #expect(throws: TONError.library(code: 40005)) { try await wallet.recoveryDataLength() }
        await #expect(throws: TONError.library(code: 40007, detail: "3.")) { try await wallet.recoveryData() }
        #expect(await channel.remaining == 0)
    }

    @Test func wrongSerialNumber() async throws {
        let (wallet, _) = try await wallet([(selectTON, ok), (appInfo, "17" + ok), (serial, VectorA.serialWire + ok)])
        await #expect(throws: TONError.library(code: 70000)) {
            try await wallet.checkSerialNumber(try TONSerialNumber("000000000000000000000001"))
        }
    }
}
