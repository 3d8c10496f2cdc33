import CardFlow
import CardFlowSimulator
import Crypto
import Testing

@testable import CardFlowTONCard

/// The client against the virtual TON card (`SimulatedTONCard`, vector A factory data).
@Suite("TON client end to end on the virtual card")
struct TONEndToEndTests {
    struct Setup {
        let reader: Reader
        let virtual: VirtualCCIDReader
        let keys: TONHmacKeyStore

        func session<T: Sendable>(_ body: @Sendable (TONWallet) async throws -> T) async throws -> T {
            let keys = self.keys
            return try await reader.withSession { session in
                await session.addRedaction(TONWallet.redaction)
                return try await body(TONWallet(channel: session, hmacKeys: keys))
            }
        }

        /// Sends raw bytes, for what the client never sends.
        func raw(_ hex: String) async throws -> ResponseAPDU {
            try await reader.withSession { session in try await session.transmit(try CommandAPDU(hex: hex)) }
        }
    }

    func setup(seed: UInt64 = 7) async -> Setup {
        let virtual = VirtualCCIDReader()
        await virtual.insert(SimulatedTONCard(seed: seed))
        return Setup(
            reader: Reader.simulated(virtual), virtual: virtual, keys: TONHmacKeyStore(store: InMemoryKeyStore()))
    }

    func activated(pin: String = "5555") async throws -> Setup {
        let setup = await setup()
        var policy = SessionPolicy()
        policy.identity = TONActivation.cardIdentity
        let run = setup.reader.run(
            TONActivation.flow(activation: try VectorA.activation(), pin: try TONPin(pin), hmacKeys: setup.keys),
            policy: policy)
        #expect(try await run.value == .personalized)
        return setup
    }

    @Test func activationFlowVectorA() async throws {
        let setup = await setup()
        var policy = SessionPolicy()
        policy.identity = TONActivation.cardIdentity
        let run = setup.reader.run(
            TONActivation.flow(activation: try VectorA.activation(), hmacKeys: setup.keys), policy: policy)
        let events = Task {
            var names: [String] = []
            for await event in run.progress { if case .stepFinished(_, _, let name) = event { names.append(name) } }
            return names
        }
        let state = try await run.value
        #expect(state == .personalized)
        #expect(TONJSON.success(state.message) == #"{"message":"TonWalletApplet is personalized.","status":"ok"}"#)
        #expect(
            await events.value == [
                "root key status", "generate seed", "applet state", "check hashes", "verify password",
                "set PIN", "personalized",
            ])
        #expect(try await setup.keys.key(serialNumber: TONSerialNumber(VectorA.serial)).hexString == VectorA.hmacKey)
        #expect(try await setup.session { try await $0.serialNumber().digits } == VectorA.serial)
        #expect(try await setup.session { try await $0.coinManager.rootKeyStatus() })
    }

    @Test func activationResumesAfterTheCardIsLifted() async throws {
        let setup = await setup()
        var policy = SessionPolicy()
        policy.identity = TONActivation.cardIdentity
        policy.cardReturnTimeout = .seconds(5)
        // Lifted in the middle of the flow (after the seed exists), back shortly after.
        await setup.virtual.liftCard(afterAPDUs: 12, returnAfter: .milliseconds(100))
        let run = setup.reader.run(
            TONActivation.flow(activation: try VectorA.activation(), hmacKeys: setup.keys), policy: policy)
        let events = Task {
            var lost = false
            var resumed = false
            for await event in run.progress {
                if case .cardLost = event { lost = true }
                if case .resumed = event { resumed = true }
            }
            return (lost, resumed)
        }
        #expect(try await run.value == .personalized)
        let (lost, resumed) = await events.value
        #expect(lost && resumed)
    }

    @Test func activationPacedByThePolicy() async throws {
        let setup = await setup()
        var policy = SessionPolicy()
        policy.identity = TONActivation.cardIdentity
        // The seed slept 5 s between NFC sessions; here the policy power-cycles between steps.
        policy.reconnectBetweenSteps = true
        policy.cooldown = .milliseconds(10)
        let run = setup.reader.run(
            TONActivation.flow(activation: try VectorA.activation(), pin: try TONPin("1357"), hmacKeys: setup.keys),
            policy: policy)
        #expect(try await run.value == .personalized)
        try await setup.session { wallet in
            try await wallet.verifyPin(try TONPin("1357"))
            #expect(try await wallet.signForDefaultPath([1]).count == 64)
        }
    }

    @Test func activationIsCancellable() async throws {
        let setup = await setup()
        // No card: the flow waits for one until cancelled.
        _ = await setup.virtual.removeCard()
        var policy = SessionPolicy()
        policy.connectTimeout = .seconds(30)
        let run = setup.reader.run(
            TONActivation.flow(activation: try VectorA.activation(), hmacKeys: setup.keys), policy: policy)
        for await event in run.progress {
            if case .waitingForCard = event { break }
        }
        run.cancel()
        await #expect(throws: (any Error).self) { _ = try await run.value }
        #expect(try await setup.keys.serialNumbers().isEmpty)
    }

    @Test func activationWithOtherPinAndSpoiledData() async throws {
        let setup = try await activated(pin: "1234")
        do {
            try await setup.session { try await $0.verifyPin(.default) }
            Issue.record("5555 accepted after the PIN was changed")
        } catch let error as TONError {
            #expect(error.statusWord == StatusWord(0x6F07))
        }
        try await setup.session { try await $0.verifyPin(try TONPin("1234")) }

        // Activation data of another card: the hash check refuses before the password is sent.
        let fresh = await self.setup(seed: 9)
        var other = try [UInt8](hex: VectorA.commonSecret)
        other[0] ^= 1
        let spoiled = try TONActivationData(
            password: try [UInt8](hex: VectorA.password), commonSecret: other, iv: try [UInt8](hex: VectorA.iv))
        let run = fresh.reader.run(TONActivation.flow(activation: spoiled, hmacKeys: fresh.keys))
        await #expect(throws: TONError.library(code: 40010)) {
            do { _ = try await run.value } catch let error as FlowError { throw error.underlying }
        }
    }

    @Test func wrongPinCountsAndRecordedErrorJSON() async throws {
        let setup = try await activated()
        for attempt in 1...10 {
            do {
                try await setup.session { try await $0.verifyPin(try TONPin("5558")) }
                Issue.record("wrong PIN accepted")
            } catch let error as TONError {
                if attempt < 10 {
                    #expect(error.statusWord == StatusWord(0x6F07), "attempt \(attempt)")
                    let json = error.json
                    #expect(
                        json.hasPrefix(
                            #"{"message":"Incorrect PIN (from Ton wallet applet).","status":"fail","errorCode":"6F07","errorTypeId":"0","errorType":"Applet fail: card operation error","cardInstruction":"VERIFY_PIN","apdu":"B0 A2 00 00 44 ********"#
                        ))
                    #expect(!json.contains("35353538"), "the PIN must not reach the error JSON")
                    #expect(json.hasSuffix(#" FFFFFFFF "}"#))
                } else {
                    #expect(error.statusWord == StatusWord(0x6F08), "attempt \(attempt)")
                }
            }
        }
        // Expired: even the right PIN and the public key answer 6F08.
        await #expect(throws: TONError.self) { try await setup.session { try await $0.verifyPin(.default) } }
        do {
            _ = try await setup.session { try await $0.publicKeyForDefaultPath() }
            Issue.record("public key after expiry")
        } catch let error as TONError {
            #expect(error.statusWord == StatusWord(0x6F08))
        }
    }

    @Test func signaturesVerifyWithTheCardsPublicKeys() async throws {
        let setup = try await activated()
        let message: [UInt8] = [0x00, 0x01, 0x02, 0x03, 0x04]
        let index = try TONHDIndex("171")
        let (publicKey, signature, indexedKey, indexedSignature, zeroSignature) = try await setup.session { wallet in
            let publicKey = try await wallet.publicKeyForDefaultPath()
            let signature = try await wallet.verifyPinAndSignForDefaultPath(message, pin: .default)
            let indexedKey = try await wallet.publicKey(hdIndex: index)
            let indexedSignature = try await wallet.verifyPinAndSign(message, hdIndex: index, pin: .default)
            try await wallet.verifyPin(.default)
            let zeroSignature = try await wallet.sign(message, hdIndex: try TONHDIndex("0"))
            return (publicKey, signature, indexedKey, indexedSignature, zeroSignature)
        }
        #expect(
            try Curve25519.Signing.PublicKey(rawRepresentation: publicKey).isValidSignature(signature, for: message))
        #expect(
            try Curve25519.Signing.PublicKey(rawRepresentation: indexedKey).isValidSignature(
                indexedSignature, for: message))
        #expect(publicKey != indexedKey)
        // The default path is index 0.
        #expect(zeroSignature == signature)
        // Longest messages.
        let long = [UInt8](repeating: 0xA5, count: 189)
        let longSignature = try await setup.session { try await $0.verifyPinAndSignForDefaultPath(long, pin: .default) }
        #expect(
            try Curve25519.Signing.PublicKey(rawRepresentation: publicKey).isValidSignature(longSignature, for: long))
    }

    @Test func signingWithoutPinIsRefused() async throws {
        let setup = try await activated()
        do {
            _ = try await setup.session { try await $0.signForDefaultPath([1, 2, 3]) }
            Issue.record("signed without PIN")
        } catch let error as TONError {
            #expect(error.statusWord == StatusWord(0x6F04))
        }
    }

    @Test func wrongPasswordCountsUpToBlocking() async throws {
        let setup = await setup()
        var password = try [UInt8](hex: VectorA.password)
        password[5] ^= 0xFF
        let wrong = try TONActivationData(
            password: password, commonSecret: try [UInt8](hex: VectorA.commonSecret), iv: try [UInt8](hex: VectorA.iv))
        try await setup.session { wallet in
            try await wallet.coinManager.generateSeed(pin: .default)
            for attempt in 1...20 {
                do {
                    try await wallet.verifyPassword(wrong)
                    Issue.record("wrong password accepted")
                } catch let error as TONError {
                    #expect(error.statusWord == StatusWord(attempt < 20 ? 0x5F00 : 0x5F01), "attempt \(attempt)")
                }
            }
            #expect(try await wallet.appletState() == .blocked)
            // Blocked: the serial number still answers; the client refuses the rest itself.
            #expect(try await wallet.serialNumber().digits == VectorA.serial)
            await #expect(
                throws: TONError.library(code: 50000, detail: " : VERIFY_PASSWORD in TonWalletApplet is blocked.")
            ) {
                try await wallet.verifyPassword(try VectorA.activation())
            }
        }
    }

    @Test func wrongHmacKeyCountsUpToBlocking() async throws {
        let setup = try await activated()
        let serial = try TONSerialNumber(VectorA.serial)
        try await setup.keys.setKey([UInt8](repeating: 0x42, count: 32), serialNumber: serial)
        try await setup.session { wallet in
            for attempt in 1...20 {
                do {
                    try await wallet.verifyPin(.default)
                    Issue.record("wrong HMAC accepted")
                } catch let error as TONError {
                    #expect(error.statusWord == StatusWord(attempt < 20 ? 0x8F03 : 0x8F04), "attempt \(attempt)")
                    if attempt == 1 { #expect(error.message == "Incorrect apdu hmac. ") }
                }
            }
            #expect(try await wallet.appletState() == .blocked)
        }
    }

    @Test func theRightKeyResetsTheHmacCounter() async throws {
        let setup = try await activated()
        let serial = try TONSerialNumber(VectorA.serial)
        for _ in 1...19 {
            try await setup.keys.setKey([UInt8](repeating: 0x42, count: 32), serialNumber: serial)
            await #expect(throws: TONError.self) { try await setup.session { try await $0.verifyPin(.default) } }
            try await setup.keys.createKey(from: try VectorA.activation(), serialNumber: serial)
            try await setup.session { try await $0.verifyPin(.default) }
        }
        #expect(try await setup.session { try await $0.appletState() } == .personalized)
    }

    @Test func wrongLeAndWrongStateAtTheCard() async throws {
        let setup = await setup()
        _ = try await setup.raw("00A4040008A000000151000000")
        #expect(
            try await setup.reader.withSession { session in
                _ = try await session.transmit(TONCommands.selectCoinManager)
                _ = try await session.transmit(TONCommands.generateSeed(pin: .default))
                _ = try await session.transmit(TONCommands.selectApplet)
                let wrongLe = try await session.transmit(try CommandAPDU(hex: "B0C1000000"))
                let wrongState = try await session.transmit(try CommandAPDU(hex: "B0A7000020"))
                return [wrongLe.statusWord, wrongState.statusWord]
            } == [StatusWord(0x6700), StatusWord(0x6D00)])
    }

    @Test func selectWithoutSeedFailsWithSetCurve() async throws {
        let setup = await setup()
        try await setup.session { wallet in
            // A factory card has no seed yet: the applet cannot be selected.
            for generate in [false, true] {
                if generate {
                    try await wallet.coinManager.generateSeed(pin: .default)
                    #expect(try await wallet.appletState() == .waitingForAuthentication)
                    try await wallet.coinManager.resetWallet()
                }
                do {
                    _ = try await wallet.appletState()
                    Issue.record("selected without a seed")
                } catch let error as TONError {
                    #expect(error.statusWord == StatusWord(0x6F02))
                    #expect(error.json.contains(#""cardInstruction":"SELECT_TON_APPLET""#))
                }
            }
        }
    }

    @Test func fullKeychainSession() async throws {
        let setup = try await activated()
        let keys: [[UInt8]] = [
            [0x00, 0x11, 0x22, 0x33, 0x44, 0x55],
            (0..<300).map { UInt8(truncatingIfNeeded: $0 &* 7) },
            (0..<129).map { UInt8(truncatingIfNeeded: $0 &+ 3) },
            [0xFE],
        ]
        try await setup.session { wallet in
            try await wallet.resetKeychain()
            var ids: [[UInt8]] = []
            for key in keys { ids.append(try await wallet.addKey(key)) }
            #expect(ids[0].hexString == "D7E0DFB66A2F72AAD7D66D897C805D307EE1F1CB8077D3B8CF1A942D6A5AC2FF")
            let info = try await wallet.keychainInfo()
            #expect(info == TONKeychainInfo(numberOfKeys: 4, occupiedSize: 436, freeSize: 32767 - 436))
            #expect(try await wallet.keychainKeys() == zip(ids, keys).map { TONKeyInfo(hmac: $0, length: $1.count) })
            for (id, key) in zip(ids, keys) { #expect(try await wallet.key(hmac: id) == key) }
            #expect(try await wallet.keyLocation(hmac: ids[2]) == TONKeyLocation(index: 2, length: 129))
            try await wallet.checkKeyHmacConsistency(hmac: ids[1])
            try await wallet.checkAvailableVolume(forKeyOfSize: 8192)

            // Same id twice: the card refuses (7F06).
            do {
                _ = try await wallet.addKey(keys[0])
                Issue.record("duplicate key added")
            } catch let error as TONError {
                #expect(error.statusWord == StatusWord(0x7F06))
            }

            // Change the 300-byte key; same length only.
            let replacement = (0..<300).map { UInt8(truncatingIfNeeded: 255 - $0) }
            let newId = try await wallet.changeKey(replacement, oldHmac: ids[1])
            #expect(try await wallet.key(hmac: newId) == replacement)
            await #expect(throws: TONError.library(code: 30022, detail: "300.")) {
                try await wallet.changeKey([1, 2], oldHmac: newId)
            }

            // Delete from the middle: the keys after it move down and stay readable.
            #expect(try await wallet.deleteKey(hmac: newId) == 3)
            #expect(try await wallet.key(hmac: ids[2]) == keys[2])
            #expect(try await wallet.key(hmac: ids[3]) == keys[3])
            #expect(try await wallet.keyLocation(hmac: ids[3]) == TONKeyLocation(index: 2, length: 1))
            // Delete the last key, then the first.
            #expect(try await wallet.deleteKey(hmac: ids[3]) == 2)
            #expect(try await wallet.deleteKey(hmac: ids[0]) == 1)
            #expect(try await wallet.key(hmac: ids[2]) == keys[2])
            #expect(
                try await wallet.keychainInfo()
                    == TONKeychainInfo(numberOfKeys: 1, occupiedSize: 129, freeSize: 32767 - 129))
            // Unknown id: 7F00.
            do {
                _ = try await wallet.key(hmac: ids[0])
                Issue.record("deleted key read")
            } catch let error as TONError {
                #expect(error.statusWord == StatusWord(0x7F00))
            }
            try await wallet.resetKeychain()
            #expect(try await wallet.numberOfKeys() == 0)
        }
    }

    @Test func storageLimitAndBigKeys() async throws {
        let setup = try await activated()
        try await setup.session { wallet in
            var ids: [[UInt8]] = []
            for fill in 0..<3 {
                ids.append(try await wallet.addKey([UInt8](repeating: UInt8(fill), count: 8192)))
            }
            #expect(try await wallet.freeStorageSize() == 32767 - 3 * 8192)
            // 8191 bytes are left: an 8192-byte key does not fit (7F03 from CHECK_AVAILABLE_VOL).
            do {
                _ = try await wallet.addKey([UInt8](repeating: 9, count: 8192))
                Issue.record("key over the storage added")
            } catch let error as TONError {
                #expect(error.statusWord == StatusWord(0x7F03))
            }
            #expect(try await wallet.key(hmac: ids[1]) == [UInt8](repeating: 1, count: 8192))
            #expect(try await wallet.deleteKey(hmac: ids[0]) == 2)
            #expect(try await wallet.key(hmac: ids[2]) == [UInt8](repeating: 2, count: 8192))
        }
    }

    @Test func interruptedDeleteIsFinished() async throws {
        let setup = try await activated()
        try await setup.session { wallet in
            let first = try await wallet.addKey([1, 2, 3])
            let second = try await wallet.addKey([4, 5, 6, 7])
            // Start a delete as a lifted card would leave it: INITIATE_DELETE_KEY only.
            try await wallet.selectAndCheck(.initiateDeleteKey)
            try await wallet.reselectKey()
            _ = try await wallet.sendProtected(.initiateDeleteKey, payload: [0, 0], le: 2)
            #expect(try await wallet.appletState() == .deletingKey)
            // Adding is refused client-side in this state.
            await #expect(
                throws: TONError.library(
                    code: 50000,
                    detail:
                        " : ADD_KEY_CHUNK in TonWalletApplet is personalized and waits finishing key deleting from keychain."
                )
            ) {
                try await wallet.addKey([9])
            }
            #expect(try await wallet.deleteKeyChunkNumberOfPackets() >= 0)
            #expect(try await wallet.finishDeleteKeyAfterInterruption() == 1)
            #expect(try await wallet.appletState() == .personalized)
            #expect(try await wallet.key(hmac: second) == [4, 5, 6, 7])
            do {
                _ = try await wallet.keyLocation(hmac: first)
                Issue.record("deleted key found")
            } catch let error as TONError {
                #expect(error.statusWord == StatusWord(0x7F00))
            }
        }
    }

    @Test(arguments: [1, 250, 500, 777, 2048])
    func recoveryDataRoundTrip(length: Int) async throws {
        let setup = try await activated()
        let data = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 5) }
        try await setup.session { wallet in
            #expect(try await !wallet.isRecoveryDataSet())
            try await wallet.addRecoveryData(data)
            #expect(try await wallet.isRecoveryDataSet())
            #expect(try await wallet.recoveryDataLength() == length)
            #expect(try await wallet.recoveryDataHash() == Array(SHA256.hash(data: data)))
            #expect(try await wallet.recoveryData() == data)
            do {
                try await wallet.addRecoveryData([1])
                Issue.record("recovery data overwritten")
            } catch let error as TONError {
                #expect(error.statusWord == StatusWord(0x6F0C))
            }
            try await wallet.resetRecoveryData()
            #expect(try await !wallet.isRecoveryDataSet())
            do {
                _ = try await wallet.recoveryData()
                Issue.record("recovery data after reset")
            } catch let error as TONError {
                #expect(error.statusWord == StatusWord(0x6F0D))
            }
        }
    }

    @Test func coinManagerOnTheCard() async throws {
        let setup = await setup()
        try await setup.session { wallet in
            let manager = wallet.coinManager
            #expect(try await manager.maxPinTries() == 10)
            #expect(try await manager.remainingPinTries() == 10)
            #expect(try await !manager.rootKeyStatus())
            try await manager.generateSeed(pin: .default)
            #expect(try await manager.rootKeyStatus())
            try await manager.changePin(old: .default, new: try TONPin("2468"))
            do {
                try await manager.changePin(old: .default, new: .default)
                Issue.record("wrong old PIN accepted")
            } catch let error as TONError {
                #expect(error.statusWord == StatusWord(0x9B01))
                #expect(error.message == "Incorrect PIN (from Coin manager).")
            }
            #expect(try await manager.remainingPinTries() == 9)
            let label = (0..<32).map { UInt8($0) }
            try await manager.setDeviceLabel(label)
            #expect(try await manager.deviceLabel() == label)
            #expect(try await !manager.csn().isEmpty)
            try await manager.resetWallet()
            #expect(try await !manager.rootKeyStatus())
            #expect(try await manager.remainingPinTries() == 10)
        }
    }

    @Test func hashesOfAFactoryCard() async throws {
        let setup = await setup()
        let hashes = try await setup.session { try await $0.generateSeedAndGetHashes() }
        #expect(hashes.encryptedCommonSecretHash.hexString == VectorA.h3)
        #expect(hashes.encryptedPasswordHash.hexString == VectorA.h2)
        #expect(hashes.serialNumber.digits == VectorA.serial)
        #expect(try await setup.session { try await $0.hashes() } == hashes)
    }

    @Test func turnOnWalletInOneSession() async throws {
        let setup = await setup()
        let state = try await setup.session {
            try await $0.turnOnWallet(pin: try TONPin("7777"), activation: try VectorA.activation())
        }
        #expect(state == .personalized)
        try await setup.session { try await $0.verifyPin(try TONPin("7777")) }
    }
}
