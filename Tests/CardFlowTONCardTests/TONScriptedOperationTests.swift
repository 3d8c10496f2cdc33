import CardFlow
import Crypto
import Testing

@testable import CardFlowTONCard

@Suite("TON client APDUs against a scripted card")
struct TONScriptedOperationTests {
    func wallet(_ script: [(String?, String)], keys: TONHmacKeyStore? = nil) async throws -> (
        TONWallet, ScriptedChannel
    ) {
        let channel = ScriptedChannel(script)
        let store = if let keys { keys } else { try await VectorA.keys() }
        return (TONWallet(channel: channel, hmacKeys: store), channel)
    }

    @Test func verifyPinRecordedAPDUAndErrorJSON() async throws {
        let (wallet, channel) = try await wallet([
            (selectTON, ok), (appInfo, "17" + ok), ("B0BD000020", VectorA.recordedSault + ok),
            (VectorA.recordedVerifyPin5558, "6F07"),
        ])
        do {
            try await wallet.verifyPin(try TONPin("5558"))
            Issue.record("no error")
        } catch let error as TONError {
            #expect(error.statusWord == StatusWord(0x6F07))
            #expect(
                error.json
                    == #"{"message":"Incorrect PIN (from Ton wallet applet).","status":"fail","errorCode":"6F07","errorTypeId":"0","errorType":"Applet fail: card operation error","cardInstruction":"VERIFY_PIN","apdu":"B0 A2 00 00 44 ********EA579CD62F072B82DA55E9C780FCD0610F88F3FA1DD0858FEC1BB55D01A884738A94113A2D8852AB7B18FFCB9424B66F952A665BF737BEB79F216EEFC3A2EE37 FFFFFFFF "}"#
            )
            // The seed's recorded JSON showed the PIN (35353538); it is hidden here.
        }
        #expect(await channel.remaining == 0)
    }

    @Test func verifyPinWithoutCurrentKeyReadsTheSerial() async throws {
        let keys = TONHmacKeyStore(store: InMemoryKeyStore())
        let (wallet, _) = try await wallet(
            [
                (selectTON, ok), (appInfo, "17" + ok), ("B0C2000018", VectorA.serialWire + ok),
            ], keys: keys)
        await #expect(throws: TONError.library(code: 60000)) { try await wallet.verifyPin(.default) }
    }

    @Test func stateAndSerial() async throws {
        let (wallet, channel) = try await wallet([
            (selectTON, ok), (appInfo, "27" + ok),
            (selectTON, ok), (appInfo, "47" + ok), ("B0C2000018", VectorA.serialWire + ok),
            (selectTON, ok), (appInfo, "99" + ok),
            (selectTON, ok), (appInfo, "1717" + ok),
        ])
        #expect(try await wallet.appletState() == .waitingForAuthentication)
        #expect(try await wallet.serialNumber().digits == VectorA.serial)
        await #expect(throws: TONError.library(code: 40002, detail: "99")) { try await wallet.appletState() }
        await #expect(throws: TONError.library(code: 40001, detail: "2.")) { try await wallet.appletState() }
        #expect(await channel.remaining == 0)
    }

    @Test func stateCheckStopsBeforeTheCommand() async throws {
        let (wallet, channel) = try await wallet([(selectTON, ok), (appInfo, "27" + ok)])
        do {
            _ = try await wallet.publicKeyForDefaultPath()
            Issue.record("no error")
        } catch let error as TONError {
            #expect(error.code == 50000)
            #expect(
                error.message
                    == "APDU command is not supported : GET_PUBLIC_KEY_WITH_DEFAULT_HD_PATH in TonWalletApplet waits two-factor authentication."
            )
            #expect(
                error.json
                    == #"{"message":"APDU command is not supported : GET_PUBLIC_KEY_WITH_DEFAULT_HD_PATH in TonWalletApplet waits two-factor authentication.","status":"fail","errorCode":"50000","errorTypeId":"5","errorType":"Native code fail: improper applet state"}"#
            )
        }
        #expect(await channel.sent.count == 2)
    }

    @Test func coinManagerCommands() async throws {
        let (wallet, channel) = try await wallet([
            (selectCM, ok), ("80CB800005DFFF02810300", "0A" + ok),
            (selectCM, ok), ("80CB800005DFFF02810200", "07" + ok),
            (selectCM, ok), ("80CB800005DFFF02810500", "5A" + ok),
            (selectCM, ok), ("80CB800005DFFF02810500", "00" + ok),
            (selectCM, ok), ("80CB800005DFFE028205", ok),
            (selectCM, ok), ("80CB80000BDFFE088203050435353535", ok),
            (selectCM, ok), ("80CB800010DFFE0D82040A04353535350431323334", ok),
            (selectCM, ok), ("80CB800005DFFF02810300", "0B" + ok),
            (selectCM, ok), ("80CB800005DFFF02810300", ok),
            (selectCM, ok), ("80CB800005DFFF02810500", ok),
            (selectCM, ok), ("80CB800005DFFE028205", "6D00"),
            (selectCM, ok),
            ("80CB800026DFFE2381042000112233445566778899AABBCCDDEEFF00112233445566778899AABBCCDDEEFF", ok),
            (selectCM, ok), ("80CB800005DFFF02810100", "11223344556677881122334455667788" + ok),
            (selectCM, ok), ("80CB800005DFFF02810600", "4F0D31313232333334343535363600" + ok),
            (selectCM, ok), ("80CB800005DFFF02810900", "1008" + ok),
            (selectCM, ok), ("80CB800005DFFF02814600", ok),
        ])
        let manager = wallet.coinManager
        #expect(try await manager.maxPinTries() == 10)
        #expect(try await manager.remainingPinTries() == 7)
        #expect(try await manager.rootKeyStatus())
        #expect(try await !manager.rootKeyStatus())
        try await manager.resetWallet()
        try await manager.generateSeed(pin: .default)
        try await manager.changePin(old: .default, new: try TONPin("1234"))
        await #expect(throws: TONError.library(code: 40039)) { try await manager.maxPinTries() }
        await #expect(throws: TONError.library(code: 40038)) { try await manager.maxPinTries() }
        await #expect(throws: TONError.library(code: 40040)) { try await manager.rootKeyStatus() }
        do {
            try await manager.resetWallet()
        } catch let error as TONError {
            // CoinManager commands have no cardInstruction.
            #expect(
                error.json
                    == #"{"message":"INS value not supported.","status":"fail","errorCode":"6D00","errorTypeId":"0","errorType":"Applet fail: card operation error","apdu":"80 CB 80 00 05 DFFE028205 FFFFFFFF "}"#
            )
        }
        try await manager.setDeviceLabel(
            try [UInt8](hex: "00112233445566778899AABBCCDDEEFF00112233445566778899AABBCCDDEEFF"))
        #expect(try await manager.csn().hexString == "11223344556677881122334455667788")
        #expect(try await manager.appletList().hexString == "4F0D31313232333334343535363600")
        #expect(try await manager.seVersion().hexString == "1008")
        await #expect(throws: TONError.library(code: 40044)) { try await manager.availableMemory() }
        await #expect(throws: TONError.library(code: 10006)) { try await manager.setDeviceLabel([1]) }
        #expect(await channel.remaining == 0)
    }

    @Test func generateSeedAndGetHashes() async throws {
        let (wallet, channel) = try await wallet([
            (selectCM, ok), ("80CB800005DFFF02810500", "00" + ok),
            (selectCM, ok), ("80CB800005DFFE028205", ok),
            (selectCM, ok), ("80CB80000BDFFE088203050435353535", ok),
            (selectTON, ok), (appInfo, "27" + ok),
            ("B095000020", VectorA.h3 + ok), ("B093000020", VectorA.h2 + ok), ("B0C2000018", VectorA.serialWire + ok),
        ])
        let hashes = try await wallet.generateSeedAndGetHashes()
        #expect(
            hashes.json
                == #"{"ecsHash":"\#(VectorA.h3.lowercased())","epHash":"\#(VectorA.h2.lowercased())","serialNumber":"504394802433901126813236","status":"ok"}"#
        )
        #expect(await channel.remaining == 0)
    }

    @Test func turnOnWalletSequence() async throws {
        let keys = TONHmacKeyStore(store: InMemoryKeyStore())
        let activation = try VectorA.activation()
        let (wallet, channel) = try await wallet(
            [
                (selectCM, ok), ("80CB800005DFFE028205", ok),
                (selectCM, ok), ("80CB80000BDFFE088203050435353535", ok),
                (selectTON, ok), (appInfo, "27" + ok),
                ("B095000020", VectorA.h3 + ok), ("B093000020", VectorA.h2 + ok),
                ("B092000090" + VectorA.password + VectorA.iv, ok),
                (selectCM, ok), ("80CB800010DFFE0D82040A04353535350435353535", ok),
                (selectTON, ok), (appInfo, "17" + ok), ("B0C2000018", VectorA.serialWire + ok), (appInfo, "17" + ok),
            ], keys: keys)
        #expect(try await wallet.turnOnWallet(activation: activation) == .personalized)
        #expect(await channel.remaining == 0)
        #expect(try await keys.key(serialNumber: TONSerialNumber(VectorA.serial)).hexString == VectorA.hmacKey)
        #expect(await keys.currentSerialNumber?.digits == VectorA.serial)
    }

    @Test func spoiledHashesStopActivation() async throws {
        let activation = try VectorA.activation()
        let (first, _) = try await wallet([
            (selectCM, ok), ("80CB800005DFFE028205", ok), (selectCM, ok), ("80CB80000BDFFE088203050435353535", ok),
            (selectTON, ok), (appInfo, "27" + ok), ("B095000020", VectorA.spoiledH3 + ok),
        ])
        await #expect(throws: TONError.library(code: 40010)) { try await first.turnOnWallet(activation: activation) }
        let (second, _) = try await wallet([
            (selectCM, ok), ("80CB800005DFFE028205", ok), (selectCM, ok), ("80CB80000BDFFE088203050435353535", ok),
            (selectTON, ok), (appInfo, "27" + ok), ("B095000020", VectorA.h3 + ok),
            ("B093000020", VectorA.spoiledH2 + ok),
        ])
        await #expect(throws: TONError.library(code: 40011)) { try await second.turnOnWallet(activation: activation) }
        let (third, _) = try await wallet([
            (selectCM, ok), ("80CB800005DFFE028205", ok), (selectCM, ok), ("80CB80000BDFFE088203050435353535", ok),
            (selectTON, ok), (appInfo, "17" + ok),
        ])
        await #expect(throws: TONError.library(code: 50001, detail: "TonWalletApplet is personalized.")) {
            try await third.turnOnWallet(activation: activation)
        }
    }

    @Test func publicKeysAndSignatures() async throws {
        let key = try [UInt8](hex: VectorA.hmacKey)
        let sault = [UInt8](repeating: 0x5A, count: 32)
        let pubkey = String(repeating: "AB", count: 32)
        let signature = String(repeating: "CD", count: 64)
        let message: [UInt8] = [0, 1, 2, 3, 4]
        let index = try TONHDIndex("171")
        let defaultSign = try TONProtectedCommand.make(
            .signShortMessageForDefaultPath, payload: [0, 5] + message, sault: sault, key: key, le: 0x40)
        let indexedSign = try TONProtectedCommand.make(
            .signShortMessage, payload: [0, 5] + message + [3, 0x31, 0x37, 0x31], sault: sault, key: key, le: 0x40)
        let verify = try TONProtectedCommand.make(.verifyPin, payload: Array("5555".utf8), sault: sault, key: key)
        #expect(defaultSign.encoded().hexString.hasPrefix("B0A5000047000500010203045A5A"))
        #expect(defaultSign.encoded().last == 0x40)
        #expect(indexedSign.encoded().hexString.hasPrefix("B0A300004B00050001020304033137315A"))
        let (wallet, channel) = try await wallet([
            (selectTON, ok), (appInfo, "17" + ok), ("B0A7000020", pubkey + ok),
            (selectTON, ok), (appInfo, "17" + ok), ("B0A00000033137312" + "0", pubkey + ok),
            (selectTON, ok), (appInfo, "17" + ok), ("B0C2000018", VectorA.serialWire + ok),
            ("B0BD000020", sault.hexString + ok), (defaultSign.encoded().hexString, signature + ok),
            (selectTON, ok), (appInfo, "37" + ok), ("B0C2000018", VectorA.serialWire + ok),
            ("B0BD000020", sault.hexString + ok), (indexedSign.encoded().hexString, signature + ok),
            (selectTON, ok), (appInfo, "17" + ok), ("B0C2000018", VectorA.serialWire + ok),
            ("B0BD000020", sault.hexString + ok), (verify.encoded().hexString, ok),
            ("B0BD000020", sault.hexString + ok), (defaultSign.encoded().hexString, signature + ok),
            (selectTON, ok), (appInfo, "17" + ok), ("B0A7000020", "AB" + ok),
            (selectTON, ok), (appInfo, "17" + ok), ("B0C2000018", VectorA.serialWire + ok),
            ("B0BD000020", sault.hexString + ok), (defaultSign.encoded().hexString, "6F04"),
        ])
        #expect(try await wallet.publicKeyForDefaultPath().hexString == pubkey)
        #expect(try await wallet.publicKey(hdIndex: index).hexString == pubkey)
        #expect(try await wallet.signForDefaultPath(message).hexString == signature)
        #expect(try await wallet.sign(message, hdIndex: index).hexString == signature)
        #expect(try await wallet.verifyPinAndSignForDefaultPath(message, pin: .default).hexString == signature)
        await #expect(throws: TONError.library(code: 40013)) { try await wallet.publicKeyForDefaultPath() }
        do {
            _ = try await wallet.signForDefaultPath(message)
        } catch let error as TONError {
            #expect(error.message == "Sign data failed.")
            #expect(error.json.contains(#""cardInstruction":"SIGN_SHORT_MESSAGE_WITH_DEFAULT_PATH""#))
        }
        await #expect(throws: TONError.library(code: 10009)) { try await wallet.signForDefaultPath([]) }
        await #expect(throws: TONError.library(code: 10010)) {
            try await wallet.sign([UInt8](repeating: 1, count: 179), hdIndex: index)
        }
        #expect(await channel.remaining == 0)
    }

    @Test func recoveryDataChunks() async throws {
        let data = (0..<600).map { UInt8(truncatingIfNeeded: $0) }
        let hash = Array(SHA256.hash(data: data)).hexString
        let (wallet, channel) = try await wallet([
            (selectTON, ok), (appInfo, "17" + ok),
            ("B0D10000FA" + Array(data[0..<250]).hexString, ok),
            ("B0D10100FA" + Array(data[250..<500]).hexString, ok),
            ("B0D1010064" + Array(data[500..<600]).hexString, ok),
            ("B0D1020020" + hash, ok),
            (selectTON, ok), (appInfo, "17" + ok), ("B0D4000002", "0258" + ok),
            ("B0D20000020000FA", Array(data[0..<250]).hexString + ok),
            ("B0D200000200FAFA", Array(data[250..<500]).hexString + ok),
            ("B0D200000201F464", Array(data[500..<600]).hexString + ok),
            (selectTON, ok), (appInfo, "17" + ok), ("B0D6000001", "01" + ok),
            (selectTON, ok), (appInfo, "17" + ok), ("B0D3000020", hash + ok),
            (selectTON, ok), (appInfo, "17" + ok), ("B0D4000002", "0258" + ok),
            (selectTON, ok), (appInfo, "17" + ok), ("B0D50000", ok),
            (selectTON, ok), (appInfo, "17" + ok), ("B0D4000002", "0900" + ok),
            (selectTON, ok), (appInfo, "17" + ok), ("B0D4000002", "6F0D"),
        ])
        try await wallet.addRecoveryData(data)
        #expect(try await wallet.recoveryData() == data)
        #expect(try await wallet.isRecoveryDataSet())
        #expect(try await wallet.recoveryDataHash().hexString == hash)
        #expect(try await wallet.recoveryDataLength() == 600)
        try await wallet.resetRecoveryData()
        await #expect(throws: TONError.library(code: 40005)) { try await wallet.recoveryDataLength() }
        do {
            _ = try await wallet.recoveryDataLength()
        } catch let error as TONError {
            #expect(error.message == "Recovery data does not exist")
        }
        await #expect(throws: TONError.library(code: 30012)) {
            try await wallet.addRecoveryData([UInt8](repeating: 0, count: 2049))
        }
        await #expect(throws: TONError.library(code: 30012)) { try await wallet.addRecoveryData([]) }
        #expect(await channel.remaining == 0)
    }
}
