import CardFlow
import Testing

@testable import CardFlowTONCard

@Suite("TON keychain APDUs against a scripted card")
struct TONKeychainScriptedTests {
    let sault = [UInt8](repeating: 0x11, count: 32)

    /// GS then the protected command, as script steps.
    func protected(_ ins: TONInstruction, p1: UInt8 = 0, _ payload: [UInt8] = [], le: Int? = nil, answer: String) throws
        -> [(String?, String)]
    {
        try protectedSteps(ins, p1: p1, payload, le: le, sault: sault, answer: answer)
    }

    func prefix(_ state: String = "17") -> [(String?, String)] {
        [(selectTON, ok), (appInfo, state + ok), (serial, VectorA.serialWire + ok)]
    }

    @Test func addGetChangeDelete() async throws {
        let key: [UInt8] = [0x00, 0x11, 0x22, 0x33, 0x44, 0x55]
        let id = try [UInt8](hex: "D7E0DFB66A2F72AAD7D66D897C805D307EE1F1CB8077D3B8CF1A942D6A5AC2FF")
        let newKey: [UInt8] = [9, 8, 7, 6, 5, 4]
        let newId = TONProtectedCommand.keyHmac(newKey, key: try [UInt8](hex: VectorA.hmacKey))
        var script: [(String?, String)] = prefix()
        script += try protected(.getNumberOfKeys, le: 2, answer: "0000" + ok)
        script += try protected(.checkAvailableVolumeForNewKey, [0x00, 0x06], answer: ok)
        script += try protected(.addKeyChunk, p1: 0, [6] + key, answer: ok)
        script += try protected(.addKeyChunk, p1: 2, id, le: 2, answer: "0001" + ok)
        // get
        script += prefix()
        script += try protected(.getKeyIndexAndLength, id, le: 4, answer: "00000006" + ok)
        script += try protected(.getKeyChunk, [0, 0, 0, 0], le: 6, answer: key.hexString + ok)
        // change
        script += prefix()
        script += try protected(.getNumberOfKeys, le: 2, answer: "0001" + ok)
        script += try protected(.getKeyIndexAndLength, id, le: 4, answer: "00000006" + ok)
        script += try protected(.initiateChangeOfKey, [0, 0], answer: ok)
        script += try protected(.changeKeyChunk, p1: 0, [6] + newKey, answer: ok)
        script += try protected(.changeKeyChunk, p1: 2, newId, le: 2, answer: "0001" + ok)
        // info and list
        script += prefix()
        script += try protected(.getNumberOfKeys, le: 2, answer: "0001" + ok)
        script += try protected(.getOccupiedStorageSize, le: 2, answer: "0006" + ok)
        script += try protected(.getFreeStorageSize, le: 2, answer: "7FF9" + ok)
        script += prefix()
        script += try protected(.getNumberOfKeys, le: 2, answer: "0001" + ok)
        script += try protected(.getHmac, [0, 0], le: 0x22, answer: newId.hexString + "0006" + ok)
        // delete (Android flow)
        script += prefix()
        script += try protected(.getKeyIndexAndLength, newId, le: 4, answer: "00000006" + ok)
        script += [(appInfo, "17" + ok)]
        script += try protected(.initiateDeleteKey, [0, 0], le: 2, answer: "0006" + ok)
        script += try protected(.deleteKeyChunk, le: 1, answer: "00" + ok)
        script += try protected(.deleteKeyChunk, le: 1, answer: "01" + ok)
        script += try protected(.deleteKeyRecord, le: 1, answer: "01" + ok)
        script += try protected(.getNumberOfKeys, le: 2, answer: "0000" + ok)

        let channel = ScriptedChannel(script)
        let wallet = TONWallet(channel: channel, hmacKeys: try await VectorA.keys())
        #expect(try await wallet.addKey(key) == id)
        #expect(try await wallet.key(hmac: id) == key)
        #expect(try await wallet.changeKey(newKey, oldHmac: id) == newId)
        let info = try await wallet.keychainInfo()
        #expect(info.json == #"{"numberOfKeys":"1","occupiedSize":"6","freeSize":"32761","status":"ok"}"#)
        let keys = try await wallet.keychainKeys()
        #expect(TONKeyInfo.json(keys) == #"[{"hmac":"\#(newId.lowercaseHex)","length":"6"}]"#)
        #expect(try await wallet.deleteKey(hmac: newId) == 0)
        #expect(await channel.remaining == 0)
    }

    @Test func multiChunkKeyIsSentIn128ByteChunks() async throws {
        let key = (0..<300).map { UInt8(truncatingIfNeeded: $0 * 7) }
        let id = TONProtectedCommand.keyHmac(key, key: try [UInt8](hex: VectorA.hmacKey))
        var script = prefix()
        script += try protected(.getNumberOfKeys, le: 2, answer: "0002" + ok)
        script += try protected(.checkAvailableVolumeForNewKey, [0x01, 0x2C], answer: ok)
        script += try protected(.addKeyChunk, p1: 0, [128] + key[0..<128], answer: ok)
        script += try protected(.addKeyChunk, p1: 1, [128] + key[128..<256], answer: ok)
        script += try protected(.addKeyChunk, p1: 1, [44] + key[256..<300], answer: ok)
        script += try protected(.addKeyChunk, p1: 2, id, le: 2, answer: "0002" + ok)
        let channel = ScriptedChannel(script)
        let wallet = TONWallet(channel: channel, hmacKeys: try await VectorA.keys())
        // The count did not grow: 40031.
        await #expect(throws: TONError.library(code: 40031)) { try await wallet.addKey(key) }
        #expect(await channel.remaining == 0)
    }

    @Test func clientSideLimits() async throws {
        var script = prefix()
        script += try protected(.getNumberOfKeys, le: 2, answer: "03FF" + ok)
        let channel = ScriptedChannel(script)
        let wallet = TONWallet(channel: channel, hmacKeys: try await VectorA.keys())
        await #expect(throws: TONError.library(code: 40015)) { try await wallet.addKey([1]) }
        await #expect(throws: TONError.library(code: 30021)) {
            try await wallet.addKey([UInt8](repeating: 0, count: 8193))
        }
        await #expect(throws: TONError.library(code: 30021)) { try await wallet.addKey([]) }
        await #expect(throws: TONError.library(code: 10013)) { try await wallet.key(hmac: [1, 2]) }
        await #expect(throws: TONError.library(code: 30023)) { try await wallet.keyInfo(index: 1023) }
        await #expect(throws: TONError.library(code: 30021)) { try await wallet.checkAvailableVolume(forKeyOfSize: 0) }
        #expect(await channel.remaining == 0)
    }

    @Test func stateGating() async throws {
        let channel = ScriptedChannel([
            (selectTON, ok), (appInfo, "37" + ok),
            (selectTON, ok), (appInfo, "17" + ok),
            (selectTON, ok), (appInfo, "47" + ok),
        ])
        let wallet = TONWallet(channel: channel, hmacKeys: try await VectorA.keys())
        // Adding needs 17; finishing a delete needs 37; a blocked applet answers AI and SN only.
        await #expect(
            throws: TONError.library(
                code: 50000,
                detail:
                    " : ADD_KEY_CHUNK in TonWalletApplet is personalized and waits finishing key deleting from keychain."
            )
        ) {
            try await wallet.addKey([1])
        }
        await #expect(throws: TONError.library(code: 50003, detail: "TonWalletApplet is personalized.")) {
            try await wallet.finishDeleteKeyAfterInterruption()
        }
        await #expect(
            throws: TONError.library(code: 50000, detail: " : GET_NUMBER_OF_KEYS in TonWalletApplet is blocked.")
        ) {
            try await wallet.numberOfKeys()
        }
        #expect(await channel.remaining == 0)
    }

    @Test func finishInterruptedDelete() async throws {
        var script: [(String?, String)] = [(selectTON, ok), (appInfo, "37" + ok), (serial, VectorA.serialWire + ok)]
        script += try protected(.getDeleteKeyChunkNumberOfPackets, le: 2, answer: "0001" + ok)
        script += try protected(.deleteKeyChunk, le: 1, answer: "00" + ok)
        script += try protected(.deleteKeyChunk, le: 1, answer: "01" + ok)
        script += try protected(.getDeleteKeyRecordNumberOfPackets, le: 2, answer: "0000" + ok)
        script += try protected(.deleteKeyRecord, le: 1, answer: "02" + ok)
        let channel = ScriptedChannel(script)
        let wallet = TONWallet(channel: channel, hmacKeys: try await VectorA.keys())
        await #expect(throws: TONError.library(code: 40026)) { try await wallet.finishDeleteKeyAfterInterruption() }
        #expect(await channel.remaining == 0)
    }
}
