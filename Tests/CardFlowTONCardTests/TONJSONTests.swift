import CardFlow
import Testing

@testable import CardFlowTONCard

@Suite("TON JSON shapes and error catalogue")
struct TONJSONTests {
    @Test func successShapes() {
        #expect(TONJSON.success("done") == #"{"message":"done","status":"ok"}"#)
        #expect(
            TONJSON.success(TONActivation.successMessage)
                == #"{"message":"TonWalletApplet is personalized.","status":"ok"}"#)
        #expect(
            TONJSON.success(["504394802433901126813236"]) == #"{"message":["504394802433901126813236"],"status":"ok"}"#)
        #expect(TONKeyLocation(index: 2, length: 6).json == #"{"message":{"index":2,"length":6},"status":"ok"}"#)
        #expect(TONJSON.string("a\"b\\c\n\u{01}").rendered == #""a\"b\\c\n\u0001""#)
    }

    @Test func libraryErrorShape() {
        // The Swift README's example of a library error.
        let error = TONError.library(code: 30006)
        #expect(
            error.json
                == #"{"message":"Pin must be a numeric string of length 4.","status":"fail","errorCode":"30006","errorTypeId":"3","errorType":"Native code fail: incorrect format of input data"}"#
        )
        #expect(TONError.library(code: 210001).typeId == 21)
        #expect(TONError.library(code: 210001).json.contains(#""errorType":"iOS code fail: NFC error""#))
        #expect(TONError.library(code: 60000).json.contains(#""errorType":"Native code (iOS) fail: hmac key issue""#))
        #expect(TONError.library(code: 70000).message == "You try to use security card with incorrect serial number. ")
        #expect(
            TONError.library(code: 40000, detail: "3.").message
                == "Sault response from card must have length 32. Current length is 3.")
    }

    @Test func catalogueIsComplete() {
        // The seed's 110 codes and CardFlow's 40046/40047 (packet counts beyond the keychain's memory).
        #expect(TONErrorCatalogue.messages.count == 112)
        for code in [
            10000, 10020, 20000, 210000, 210002, 30000, 30026, 40000, 40045, 50000, 50003, 60000, 60006, 70000,
        ] {
            #expect(TONErrorCatalogue.message(for: code) != nil, "\(code)")
        }
        #expect(TONErrorCatalogue.message(for: 30022) == "Length of new key must be equal to length of old key ")
    }

    @Test func statusWordMessages() {
        #expect(TONStatusMessages.message(for: StatusWord(0x6F07)) == "Incorrect PIN (from Ton wallet applet).")
        #expect(TONStatusMessages.message(for: StatusWord(0x9B01)) == "Incorrect PIN (from Coin manager).")
        #expect(TONStatusMessages.message(for: StatusWord(0x8F03)) == "Incorrect apdu hmac. ")
        #expect(TONStatusMessages.message(for: StatusWord(0x6F02)) == "Set curve failed.")
        #expect(TONStatusMessages.message(for: StatusWord(0x1234)) == "Unknown card status word.")
    }

    @Test func apduFormatting() throws {
        #expect(TONError.formatted(TONCommands.getAppInfo) == "B0 C1 00 00 01 ")
        #expect(TONError.formatted(TONCommands.getMaxPinTries) == "80 CB 80 00 05 DFFF028103 100 ")
        #expect(TONError.formatted(TONCommands.resetRecoveryData) == "B0 D5 00 00 FFFFFFFF ")
        let select = TONError.card(status: StatusWord(0x6F02), instruction: .select, command: TONCommands.selectApplet)
        #expect(
            select.json
                == #"{"message":"Set curve failed.","status":"fail","errorCode":"6F02","errorTypeId":"0","errorType":"Applet fail: card operation error","cardInstruction":"SELECT_TON_APPLET","apdu":"00 A4 04 00 0C 313132323333343435353636 FFFFFFFF "}"#
        )
    }

    @Test func commandBytes() throws {
        #expect(TONCommands.selectApplet.encoded().hexString == "00A404000C313132323333343435353636")
        #expect(TONCommands.selectCoinManager.encoded().hexString == "00A4040008A000000151000000")
        #expect(TONCommands.getSerialNumber.encoded().hexString == "B0C2000018")
        #expect(TONCommands.getSault.encoded().hexString == "B0BD000020")
        #expect(TONCommands.getHashOfEncryptedPassword.encoded().hexString == "B093000020")
        #expect(TONCommands.getHashOfEncryptedCommonSecret.encoded().hexString == "B095000020")
        #expect(TONCommands.getPublicKeyForDefaultPath.encoded().hexString == "B0A7000020")
        #expect(try TONCommands.getPublicKey(TONHDIndex("171")).encoded().hexString == "B0A000000331373120")
        #expect(TONCommands.getRecoveryDataLength.encoded().hexString == "B0D4000002")
        #expect(TONCommands.isRecoveryDataSet.encoded().hexString == "B0D6000001")
        #expect(
            try TONCommands.verifyPassword(VectorA.activation()).encoded().hexString == "B092000090" + VectorA.password
                + VectorA.iv)
        #expect(TONCommands.getAvailableMemory.encoded().hexString == "80CB800005DFFF02814600")
    }

    @Test func stateTable() {
        #expect(TONAppletState.waitingForAuthentication.acceptedInstructions.contains(.verifyPassword))
        #expect(!TONAppletState.personalized.acceptedInstructions.contains(.deleteKeyChunk))
        #expect(!TONAppletState.deletingKey.acceptedInstructions.contains(.initiateDeleteKey))
        #expect(TONAppletState.deletingKey.acceptedInstructions.contains(.getKeyChunk))
        #expect(TONAppletState.blocked.acceptedInstructions == [.getAppInfo, .getSerialNumber])
        #expect(TONAppletState.installed.message == "TonWalletApplet is invalid (is not personalized)")
    }

    @Test func hmacKeyStore() async throws {
        let keys = TONHmacKeyStore(store: InMemoryKeyStore())
        let serial = try TONSerialNumber(VectorA.serial)
        #expect(try await keys.serialNumbers().isEmpty)
        await #expect(throws: TONError.library(code: 60001)) { try await keys.currentKey() }
        await #expect(throws: TONError.library(code: 60000)) { try await keys.selectKey(serialNumber: serial) }
        try await keys.createKey(from: try VectorA.activation(), serialNumber: serial)
        #expect(try await keys.hasKey(serialNumber: serial))
        #expect(try await keys.serialNumbers() == [serial])
        #expect(try await keys.currentKey().hexString == VectorA.hmacKey)
        try await keys.deleteKey(serialNumber: serial)
        #expect(await keys.currentSerialNumber == nil)
        await #expect(throws: TONError.library(code: 60000)) { try await keys.deleteKey(serialNumber: serial) }
    }

    @Test func redactionHidesSecrets() throws {
        let pin = try TONProtectedCommand.make(
            .verifyPin, payload: Array("5555".utf8), sault: [UInt8](repeating: 0, count: 32), key: [1])
        #expect(TONWallet.redaction.ranges(for: pin).commandData == [0..<4])
        #expect(!TONWallet.redaction.ranges(for: TONCommands.changePin(old: .default, new: .default)).isEmpty)
        #expect(TONWallet.redaction.ranges(for: TONCommands.getMaxPinTries).isEmpty)
    }
}
