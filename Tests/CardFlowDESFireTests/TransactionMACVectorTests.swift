import CardFlow
import CardFlowCrypto
import Testing

@testable import CardFlowDESFire

/// Published vectors and datasheet layouts of the DESFire EV2 Transaction MAC.
///
/// Session keys: proxmark3 client/src/mifare/desfiretest.c `TestTransSessionKeys` (its counter
/// argument is the stored TMC; the derivation uses TMC + 1, which is what CommitTransaction
/// reports and what ``DESFireTransactionMAC`` takes). TMI forms: MF2DLHX0 §10.3.4 as quoted in
/// MichaelsPlayground/TalkToYourDESFireCard's README. GetFileSettings of a TransactionMAC file:
/// proxmark3 desfirecore.c and the NXP reader library (phalMfdfLight).
@Suite("DESFire Transaction MAC vectors and layouts")
struct TransactionMACVectorTests {
    static func key(_ hex: String) throws -> DESFireKey { try DESFireKey(type: .aes, hex: hex) }

    @Test("SesTMMACKey and SesTMENCKey, proxmark3 vector 1 (TMC 8 → 9, UID 04010203040506)")
    func sessionKeysVector1() throws {
        let key = try Self.key("66A8CB93269DC9BC2885B7A91B9C697B")
        let uid: [UInt8] = [0x04, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06]
        #expect(
            try DESFireTransactionMAC.sessionMACKey(key: key, counter: 9, uid: uid)
                == bytes("7C1AD2D9C5C08154A0A4914B401A6598"))
        #expect(
            try DESFireTransactionMAC.sessionEncryptionKey(key: key, counter: 9, uid: uid)
                == bytes("119B902A07B18A865B8E1B0060594784"))
    }

    @Test("SesTMMACKey and SesTMENCKey, proxmark3 vector 2 (TMC 12345678 → 12345679)")
    func sessionKeysVector2() throws {
        let key = try Self.key("0123456789ABCDEFFEDCBA9876543210")
        let uid: [UInt8] = [0x04, 0xA1, 0xB2, 0xC3, 0xD4, 0xE5, 0xF6]
        #expect(
            try DESFireTransactionMAC.sessionMACKey(key: key, counter: 0x1234_5679, uid: uid)
                == bytes("8F76D21BAE6765845188BCF9159BE0EC"))
        #expect(
            try DESFireTransactionMAC.sessionEncryptionKey(key: key, counter: 0x1234_5679, uid: uid)
                == bytes("6F701DC037A5F0757A7FF667055F4B25"))
    }

    @Test("the session keys refuse a non-AES key and a UID that is not 7 bytes")
    func sessionKeyArguments() throws {
        let des = try DESFireKey(type: .des, hex: "0011223344556677")
        #expect(throws: DESFireError.self) {
            try DESFireTransactionMAC.sessionMACKey(key: des, counter: 1, uid: [UInt8](repeating: 4, count: 7))
        }
        #expect(throws: DESFireError.self) {
            try DESFireTransactionMAC.sessionEncryptionKey(
                key: try Self.key("00112233445566778899AABBCCDDEEFF"), counter: 1, uid: [4, 1, 2, 3])
        }
    }

    @Test("TMV = odd bytes of CMAC(SesTMMACKey, TMI), TMI zero-padded per command")
    func valueOverInput() throws {
        let key = try Self.key("66A8CB93269DC9BC2885B7A91B9C697B")
        let uid: [UInt8] = [0x04, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06]
        // WriteData file 1 offset 3, 4 bytes; Credit file 2 by 25 (MF2DLHX0 §10.3.4 forms).
        var input = DESFireTransactionMACInput()
        input.add([0x3D, 0x01, 0x03, 0x00, 0x00, 0x04, 0x00, 0x00], data: [0xDE, 0xAD, 0xBE, 0xEF])
        input.add([0x0C, 0x02, 0x19, 0x00, 0x00, 0x00])
        let expected: [UInt8] =
            [0x3D, 0x01, 0x03, 0x00, 0x00, 0x04, 0x00, 0x00] + [UInt8](repeating: 0, count: 8)
            + [0xDE, 0xAD, 0xBE, 0xEF] + [UInt8](repeating: 0, count: 12)
            + [0x0C, 0x02, 0x19, 0x00, 0x00, 0x00] + [UInt8](repeating: 0, count: 10)
        #expect(input.bytes == expected)
        let sessionKey = try DESFireTransactionMAC.sessionMACKey(key: key, counter: 9, uid: uid)
        let full = try AESCMAC.mac(expected, key: sessionKey)
        let tmv = (0..<8).map { full[2 * $0 + 1] }
        let mac = DESFireTransactionMAC(counter: 9, value: tmv, input: expected)
        #expect(try mac.expectedValue(key: key, uid: uid) == tmv)
        #expect(try mac.verify(key: key, uid: uid))
        #expect(try !DESFireTransactionMAC(counter: 10, value: tmv, input: expected).verify(key: key, uid: uid))
    }

    @Test("GetFileSettings of a TransactionMAC file: 6 bytes, or 10 with a TMC limit (FileOption bit 5)")
    func fileSettings() throws {
        let plain = try DESFireFileSettings(response: [0x05, 0x00, 0xF0, 0xEF, 0x02, 0x09])
        #expect(plain.kind == .transactionMAC(keyOption: 0x02, keyVersion: 9, counterLimit: nil))
        #expect(plain.kind.typeCode == 0x05)
        #expect(plain.commMode == .plain)
        #expect(plain.accessRights == DESFireAccessRights(read: 14, write: 15, readWrite: 15, change: 0))
        #expect(plain.additionalAccessRights.isEmpty)

        let limited = try DESFireFileSettings(
            response: [0x05, 0x23, 0xF0, 0x1F, 0x02, 0x01, 0x64, 0x00, 0x00, 0x00])
        #expect(limited.kind == .transactionMAC(keyOption: 0x02, keyVersion: 1, counterLimit: 100))
        #expect(limited.commMode == .enciphered)
        #expect("\(limited)".contains("TMC limit 100"))
    }

    @Test(
        "malformed TransactionMAC file settings are typed errors",
        arguments: [
            [0x05, 0x00, 0xF0, 0xEF, 0x02] as [UInt8],
            [0x05, 0x00, 0xF0, 0xEF, 0x02, 0x09, 0x00],
            [0x05, 0x20, 0xF0, 0xEF, 0x02, 0x09],
            [0x05, 0x20, 0xF0, 0xEF, 0x02, 0x09, 0x01, 0x02, 0x03],
            [0x05, 0x80, 0xF0, 0xEF, 0x02, 0x09, 0x01, 0x00, 0x00],
        ])
    func malformedFileSettings(answer: [UInt8]) {
        let error = #expect(throws: DESFireError.self) { try DESFireFileSettings(response: answer) }
        guard case .malformedResponse(let command, _)? = error else {
            Issue.record("expected malformedResponse, got \(String(describing: error))")
            return
        }
        #expect(command == .getFileSettings)
    }
}
