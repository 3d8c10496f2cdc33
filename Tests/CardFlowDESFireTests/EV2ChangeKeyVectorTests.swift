import CardFlow
import CardFlowCrypto
import Testing

@testable import CardFlowDESFire

/// ChangeKey in an EV2 session, both cases, replayed byte for byte from NXP AN12196 rev. 2.0
/// §5.16 Tables 25 and 26 (rev. 1.x §6.16 Tables 26 and 27). The session is the transaction of
/// Table 19 (TI 7614281A) under the keys of Table 23 (AuthenticateEV2NonFirst with key 0).
@Suite("EV2 ChangeKey vectors (AN12196)")
struct EV2ChangeKeyVectorTests {
    static func session(counter: UInt16) throws -> EV2Session {
        try EV2Session(
            keyNumber: 0,
            keys: EV2SessionKeys(
                encryption: bytes("4CF3CB41A22583A61E89B158D252FC53"),
                mac: bytes("5529860B2FC5FB6154B7F28361D30BF9")),
            transactionIdentifier: bytes("7614281A"), commandCounter: counter)
    }

    static let zeroKey = try! DESFireKey(type: .aes, bytes: [UInt8](repeating: 0, count: 16))

    @Test("Table 25: key 2 from another key's session, (NewKey ⊕ OldKey) ‖ KeyVer ‖ CRC32NK")
    func otherKey() throws {
        // Table 25: old key 16 × 00, new key F3847D627727ED3BC9C4CC050489B966, version 01, CmdCtr 0200;
        // CRC32NK 789DFADC, key data, IVc, ciphertext, CMAC EA5D2E0CBFE24C0BCBCD501D21060EE6,
        // C-APDU and R-APDU as published.
        let session = try Self.session(counter: 2)
        let newKey = try DESFireKey(type: .aes, hex: "F3847D627727ED3BC9C4CC050489B966", version: 0x01)
        let change = try EV2ChangeKey(keyNumber: 2, newKey: newKey, oldKey: Self.zeroKey, session: session)
        #expect(!change.changesAuthenticationKey)
        #expect(DESFireCRC32.bytes(newKey.bytes) == bytes("789DFADC"))
        #expect(change.keyData == bytes("F3847D627727ED3BC9C4CC050489B966 01 789DFADC"))
        #expect(try session.commandIV() == bytes("307EDE1814707F30CFE603DD6CA62353"))
        let ciphertext = bytes("2CF362B7BF4311FF3BE1DAA295E8C68DE09050560D19B9E16C2393AE9CD1FAC7")
        #expect(
            try AESCMAC.mac([0xC4, 0x02, 0x00] + bytes("7614281A") + [0x02] + ciphertext, key: session.keys.mac)
                == bytes("EA5D2E0CBFE24C0BCBCD501D21060EE6"))
        #expect(
            try change.command(in: session).encoded() == bytes("90C4000029 02") + ciphertext
                + bytes("5D0CE20BCD1D06E6 00"))
        let next = try change.verifyResponse(ResponseAPDU(hex: "203BB55D1089D587 9100"), in: session)
        #expect(next?.commandCounter == 3)
        #expect(next?.transactionIdentifier == bytes("7614281A"))
    }

    @Test("Table 26: the session's own key 0, NewKey ‖ KeyVer; a bare 91 00 ends the session")
    func ownKey() throws {
        // Table 26: new key 5004BF991F408672B1EF00F08F9E8647, version 01, CmdCtr 0300; plaintext
        // step 11, IVc step 12, CMAC B7A60161F202EC3489BD4BEDEF64BB32, C-APDU step 17, R-APDU 91 00.
        let session = try Self.session(counter: 3)
        let newKey = try DESFireKey(type: .aes, hex: "5004BF991F408672B1EF00F08F9E8647", version: 0x01)
        let change = try EV2ChangeKey(keyNumber: 0, newKey: newKey, session: session)
        #expect(change.changesAuthenticationKey)
        #expect(change.keyData == bytes("5004BF991F408672B1EF00F08F9E8647 01"))
        #expect(try session.commandIV() == bytes("01602D579423B2797BE8B478B0B4D27B"))
        let ciphertext = bytes("C0EB4DEEFEDDF0B513A03A95A75491818580503190D4D05053FF75668A01D6FD")
        #expect(
            try AESCMAC.mac([0xC4, 0x03, 0x00] + bytes("7614281A") + [0x00] + ciphertext, key: session.keys.mac)
                == bytes("B7A60161F202EC3489BD4BEDEF64BB32"))
        #expect(
            try change.command(in: session).encoded() == bytes("90C4000029 00") + ciphertext
                + bytes("A6610234BDED6432 00"))
        #expect(try change.verifyResponse(ResponseAPDU(hex: "9100"), in: session) == nil)
    }

    @Test("the old key is XORed into the new one, byte by byte; the version and CRC are not")
    func xorRule() throws {
        // The rule of NT4H2421Gx §10.6.1; Table 25's old key is all zeros, so it cannot show the XOR.
        let session = try Self.session(counter: 2)
        let old = try DESFireKey(type: .aes, hex: "00112233445566778899AABBCCDDEEFF")
        let new = try DESFireKey(type: .aes, hex: "F3847D627727ED3BC9C4CC050489B966", version: 0x01)
        let change = try EV2ChangeKey(keyNumber: 2, newKey: new, oldKey: old, session: session)
        #expect(Array(change.keyData.prefix(16)) == zip(new.bytes, old.bytes).map { $0 ^ $1 })
        #expect(Array(change.keyData.suffix(5)) == bytes("01 789DFADC"))
        // Bits 7–6 of a PICC-level key number carry the key type; the key is still the session's.
        #expect(try EV2ChangeKey(keyNumber: 0x80, newKey: new, session: session).changesAuthenticationKey)
    }

    @Test("refusals: no old key, an old key of another family, a tampered answer, data where none is due")
    func refusals() throws {
        let session = try Self.session(counter: 2)
        let newKey = try DESFireKey(type: .aes, hex: "F3847D627727ED3BC9C4CC050489B966", version: 0x01)
        #expect(throws: EV2Error.invalidArgument("changing key 2 from a session with key 0 needs its old value")) {
            try EV2ChangeKey(keyNumber: 2, newKey: newKey, session: session)
        }
        #expect(throws: EV2Error.invalidArgument("the old key is AES, the new one DES: not the same key family")) {
            try EV2ChangeKey(keyNumber: 2, newKey: .defaultDES, oldKey: Self.zeroKey, session: session)
        }
        let change = try EV2ChangeKey(keyNumber: 2, newKey: newKey, oldKey: Self.zeroKey, session: session)
        #expect(
            throws: EV2Error.integrityCheckFailed(
                instruction: .changeKey, statusWord: StatusWord(0x9100), reason: "MAC mismatch")
        ) {
            try change.verifyResponse(ResponseAPDU(hex: "203BB55D1089D588 9100"), in: session)
        }
        #expect(throws: EV2Error.cardStatus(.noSuchKey, instruction: .changeKey)) {
            try change.verifyResponse(ResponseAPDU(hex: "9140"), in: session)
        }
        let own = try EV2ChangeKey(keyNumber: 0, newKey: newKey, session: try Self.session(counter: 3))
        #expect(
            throws: EV2Error.malformedResponse(
                instruction: .changeKey, statusWord: StatusWord(0x9100),
                reason: "2 bytes after changing the session's own key, expected none")
        ) {
            try own.verifyResponse(ResponseAPDU(hex: "0102 9100"), in: try Self.session(counter: 3))
        }
    }

    @Test("DES-family keys: the stored bytes with the version in the parity bits, no KeyVer byte")
    func desFamilyKeyData() throws {
        // The form proxmark3's DesfireChangeKey sends over an EV2 channel.
        let session = try Self.session(counter: 2)
        let twoKey = try DESFireKey(type: .twoKey3DES, hex: "00112233445566778899AABBCCDDEEFF", version: 0x2A)
        let own = try EV2ChangeKey(keyNumber: 0x00, newKey: twoKey, session: session)
        #expect(own.changesAuthenticationKey)
        #expect(own.keyData == twoKey.bytes)
        #expect(own.keyData.count == 16)
        #expect(DESKeyVersion.version(of: own.keyData) == 0x2A)

        let threeKey = try DESFireKey(
            type: .threeKey3DES, hex: "00112233445566778899AABBCCDDEEFF0123456789ABCDEF", version: 7)
        let ownThree = try EV2ChangeKey(keyNumber: 0x40, newKey: threeKey, session: session)
        #expect(ownThree.keyData == threeKey.bytes && ownThree.keyData.count == 24)

        let des = try DESFireKey(type: .des, hex: "0011223344556677", version: 3)
        #expect(try EV2ChangeKey(keyNumber: 0, newKey: des, session: session).keyData == des.bytes + des.bytes)

        // Another key: (NewKey ⊕ OldKey) ‖ CRC32 of the new key's stored bytes.
        let old = try DESFireKey(type: .twoKey3DES, hex: "0102030405060708090A0B0C0D0E0F10")
        let other = try EV2ChangeKey(keyNumber: 2, newKey: twoKey, oldKey: old, session: session)
        #expect(other.keyData == zip(twoKey.bytes, old.bytes).map { $0 ^ $1 } + DESFireCRC32.bytes(twoKey.bytes))
        #expect(other.keyData.count == 20)
        #expect(throws: EV2Error.self) {
            try EV2ChangeKey(keyNumber: 2, newKey: threeKey, oldKey: old, session: session)
        }
    }
}
