import Crypto
import Foundation
import Testing

/// `cardctl ton` against the virtual TON card (`sim:ton`), with vector A of the reference.
@Suite("cardctl ton")
struct TONCommandTests {
    static let password =
        "F4B072E1DF2DB7CF6CD0CD681EC5CD2D071458D278E6546763CBB4860F8082FE14418C8A8A55E2106CBC6CB1174F4BA6D827A26A2D205F99B7E00401DA4C15ACC943274B92258114B5E11C16DA64484034F93771547FBE60DA70E273E6BD64F8A4201A9913B386BCA55B6678CFD7E7E68A646A7543E9E439DD5B60B9615079FE"
    static let commonSecret = "7256EFE7A77AFC7E9088266EF27A93CB01CD9432E0DB66D600745D506EE04AC4"
    static let iv = "1A550F4B413D0E971C28293F9183EA8A"
    static let serial = "504394802433901126813236"

    /// A card state file and a key store in a fresh directory.
    struct Card {
        let directory: URL
        var reader: String { "sim:ton,state=\(directory.appendingPathComponent("ton.json").path)" }
        var keyStore: String { directory.appendingPathComponent("keys.json").path }

        func run(_ arguments: [String]) async throws -> CardctlResult {
            try await CardctlProcess.run(["--reader", reader] + arguments + ["--key-store", keyStore])
        }

        func activate(pin: String = "5555") async throws -> CardctlResult {
            try await run([
                "ton", "activate", "--password", TONCommandTests.password, "--common-secret",
                TONCommandTests.commonSecret,
                "--iv", TONCommandTests.iv, "--pin", pin, "--json",
            ])
        }
    }

    func withCard(_ body: (Card) async throws -> Void) async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { Fixtures.removeDirectory(directory) }
        try await body(Card(directory: directory))
    }

    static func message(_ result: CardctlResult) throws -> String? {
        let object = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]
        return object?["message"] as? String
    }

    @Test func activateVerifyPinAndSign() async throws {
        try await withCard { card in
            let activation = try await card.activate()
            #expect(activation.status == 0, "\(activation)")
            #expect(
                activation.stdoutLines.last == #"{"message":"TonWalletApplet is personalized.","status":"ok"}"#,
                "\(activation)")

            // The HMAC key persisted: the next process signs protected APDUs with it.
            let wrongPin = try await card.run(["ton", "verify-pin", "5558", "--json"])
            #expect(wrongPin.status == 1, "\(wrongPin)")
            let error = try #require(
                try JSONSerialization.jsonObject(with: Data(wrongPin.stdout.utf8)) as? [String: Any], "\(wrongPin)")
            #expect(error["errorCode"] as? String == "6F07")
            #expect(error["message"] as? String == "Incorrect PIN (from Ton wallet applet).")
            #expect(error["status"] as? String == "fail")
            #expect(error["errorTypeId"] as? String == "0")
            #expect(error["errorType"] as? String == "Applet fail: card operation error")
            #expect(error["cardInstruction"] as? String == "VERIFY_PIN")
            // The failing APDU is shown with the PIN hidden (the seed printed it in clear).
            #expect((error["apdu"] as? String)?.hasPrefix("B0 A2 00 00 44 ********") == true, "\(wrongPin)")
            #expect(!wrongPin.stdout.contains("35353538") && !wrongPin.stderr.contains("35353538"), "\(wrongPin)")

            let sign = try await card.run(["ton", "sign", "--pin", "5555", "--data", "0001020304", "--json"])
            #expect(sign.status == 0, "\(sign)")
            let publicKey = try await card.run(["ton", "public-key", "--json"])
            #expect(publicKey.status == 0, "\(publicKey)")
            let signature = try [UInt8](tonHex: try #require(try Self.message(sign)))
            let key = try Curve25519.Signing.PublicKey(
                rawRepresentation: try [UInt8](tonHex: try #require(try Self.message(publicKey))))
            #expect(key.isValidSignature(signature, for: [0x00, 0x01, 0x02, 0x03, 0x04]))

            let state = try await card.run(["ton", "state", "--json"])
            #expect(state.stdout == #"{"message":"TonWalletApplet is personalized.","status":"ok"}"# + "\n")
            let serial = try await card.run(["ton", "serial"])
            #expect(serial.stdoutLines == [Self.serial])
            let keys = try await card.run(["ton", "hmac-keys", "--json"])
            #expect(keys.stdoutLines == [#"{"message":["504394802433901126813236"],"status":"ok"}"#])
        }
    }

    @Test func coinManagerCommands() async throws {
        try await withCard { card in
            let tries = try await card.run(["ton", "pin-tries", "--max", "--json"])
            #expect(tries.stdoutLines == [#"{"message":"10","status":"ok"}"#], "\(tries)")
            let activation = try await card.activate()
            #expect(activation.status == 0, "\(activation)")
            let status = try await card.run(["ton", "root-key-status", "--json"])
            #expect(status.stdoutLines == [#"{"message":"generated","status":"ok"}"#], "\(status)")
            let left = try await card.run(["ton", "pin-tries"])
            #expect(left.stdoutLines == ["10"], "\(left)")
        }
    }

    @Test func keychainAndRecovery() async throws {
        try await withCard { card in
            #expect(try await card.activate().status == 0)
            let add = try await card.run(["ton", "keychain", "add", "--key", "001122334455", "--json"])
            #expect(
                add.stdoutLines == [
                    #"{"message":"d7e0dfb66a2f72aad7d66d897c805d307ee1f1cb8077d3b8cf1a942d6a5ac2ff","status":"ok"}"#
                ], "\(add)")
            let id = "d7e0dfb66a2f72aad7d66d897c805d307ee1f1cb8077d3b8cf1a942d6a5ac2ff"
            let get = try await card.run(["ton", "keychain", "get", "--hmac", id])
            #expect(get.stdoutLines == ["001122334455"], "\(get)")
            let list = try await card.run(["ton", "keychain", "list", "--json"])
            #expect(list.stdoutLines == [#"[{"hmac":"\#(id)","length":"6"}]"#], "\(list)")
            let change = try await card.run(["ton", "keychain", "change", "--hmac", id, "--key", "AABBCCDDEEFF"])
            #expect(change.status == 0, "\(change)")
            let newId = try #require(change.stdoutLines.first)
            let wrongLength = try await card.run([
                "ton", "keychain", "change", "--hmac", newId, "--key", "AABB", "--json",
            ])
            #expect(wrongLength.status == 2, "\(wrongLength)")
            #expect(wrongLength.stdout.contains(#""errorCode":"30022""#), "\(wrongLength)")
            let delete = try await card.run(["ton", "keychain", "delete", "--hmac", newId, "--json"])
            #expect(delete.stdoutLines == [#"{"message":"0","status":"ok"}"#], "\(delete)")

            let data = String(repeating: "0123456789abcdef", count: 40)
            #expect(try await card.run(["ton", "recovery", "set", "--data", data]).status == 0)
            let back = try await card.run(["ton", "recovery", "get", "--json"])
            #expect(back.stdoutLines == [#"{"message":"\#(data)","status":"ok"}"#], "\(back)")
            let again = try await card.run(["ton", "recovery", "set", "--data", "00", "--json"])
            #expect(again.stdout.contains(#""errorCode":"6F0C""#), "\(again)")
            #expect(try await card.run(["ton", "recovery", "reset"]).status == 0)
            let status = try await card.run(["ton", "recovery", "status"])
            #expect(status.stdoutLines == ["false"], "\(status)")
        }
    }

    @Test func tracesHideThePasswordAndThePin() async throws {
        try await withCard { card in
            let activation = try await card.run([
                "ton", "activate", "--password", Self.password, "--common-secret", Self.commonSecret,
                "--iv", Self.iv, "--pin", "2468", "--trace",
            ])
            #expect(activation.status == 0, "\(activation)")
            let lines = activation.stdoutLines + activation.stderrLines
            #expect(lines.contains { $0.hasPrefix(">>> Send apdu B0 92 00 00 90 ** ** **") }, "\(activation)")
            #expect(!(activation.stdout + activation.stderr).contains("F4 B0 72 E1 DF 2D"), "\(activation)")
            #expect(!(activation.stdout + activation.stderr).contains("32 34 36 38"), "\(activation)")
            let verify = try await card.run(["ton", "verify-pin", "2468", "--trace"])
            #expect(verify.status == 0, "\(verify)")
            #expect(
                (verify.stdoutLines + verify.stderrLines).contains {
                    $0.hasPrefix(">>> Send apdu B0 A2 00 00 44 ** ** ** ** ")
                }, "\(verify)")
        }
    }

    @Test func badInputIsALibraryErrorWithExitCode2() async throws {
        try await withCard { card in
            let result = try await card.run([
                "ton", "activate", "--password", "00", "--common-secret", Self.commonSecret,
                "--iv", Self.iv, "--json",
            ])
            #expect(result.status == 2, "\(result)")
            #expect(
                result.stdoutLines == [
                    #"{"message":"Activation password is a hex string of length 256.","status":"fail","errorCode":"30000","errorTypeId":"3","errorType":"Native code fail: incorrect format of input data"}"#
                ])
        }
    }

    @Test func protectedCommandWithoutKeyIsAKeyError() async throws {
        try await withCard { card in
            #expect(try await card.activate().status == 0)
            // Another key store: no HMAC key for this card.
            let other = card.directory.appendingPathComponent("other.json").path
            let result = try await CardctlProcess.run([
                "--reader", card.reader, "ton", "verify-pin", "5555", "--json", "--key-store", other,
            ])
            #expect(result.status == 1, "\(result)")
            #expect(result.stdout.contains(#""errorCode":"60000""#), "\(result)")
        }
    }
}

extension [UInt8] {
    init(tonHex text: String) throws {
        var bytes: [UInt8] = []
        var index = text.startIndex
        while index < text.endIndex {
            let next = text.index(index, offsetBy: 2, limitedBy: text.endIndex) ?? text.endIndex
            guard let byte = UInt8(text[index..<next], radix: 16) else {
                throw CardctlHarnessError(description: "bad hex \(text)")
            }
            bytes.append(byte)
            index = next
        }
        self = bytes
    }
}
