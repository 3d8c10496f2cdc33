import CardFlow
import CardFlowCrypto
import Testing

@testable import CardFlowDESFire

/// The SUN/SDM verifier against NXP AN12196's worked examples. Table numbers are rev. 2.0's
/// (§3.3–§3.4); rev. 1.x numbers each one higher (§4.3 Table 2 … §4.4.4.2.2 Table 6), as cited by
/// trustchain-dev/pylibsdm tests/backend/test_validate.py and icedevml/sdm-backend test_libsdm.py.
@Suite("NTAG 424 DNA SUN vectors (AN12196)")
struct NTAG424SUNVectorTests {
    static let zero = [UInt8](repeating: 0, count: 16)

    @Test("Table 1: SDM session keys from SV1/SV2 with a non-zero SDMFileReadKey")
    func sessionKeys() throws {
        // AN12196 rev. 2.0 §3.3 Table 1 (rev. 1.x §4.3 Table 2, p. 10): UID 04C767F2066180,
        // SDMReadCtr 010000 (LSB first), SDMFileReadKey 5ACE7E50AB65D5D51FD5BF5A16B8205B.
        let picc = try NTAG424PICCData(uid: bytes("04C767F2066180"), readCounter: 1)
        #expect(picc.readCounterBytes == bytes("010000"))
        #expect(
            NTAG424SDMSessionKeys.sessionVector(label: NTAG424SDMSessionKeys.encryptionLabel, piccData: picc)
                == bytes("C33C0001008004C767F2066180010000"))
        #expect(
            NTAG424SDMSessionKeys.sessionVector(label: NTAG424SDMSessionKeys.macLabel, piccData: picc)
                == bytes("3CC30001008004C767F2066180010000"))
        let keys = try NTAG424SDMSessionKeys(fileReadKey: bytes("5ACE7E50AB65D5D51FD5BF5A16B8205B"), piccData: picc)
        #expect(keys.encryption == bytes("66DA61797E23DECA5D8ECA13BBADF7A9"))
        #expect(keys.mac == bytes("3A3E8110E05311F7A3FCF0D969BF2B48"))
        #expect(!"\(keys)".contains("66DA"))
    }

    @Test("Table 2: PICCData deciphers to C7 ‖ UID ‖ SDMReadCtr ‖ padding")
    func piccData() throws {
        // AN12196 rev. 2.0 Table 2 (rev. 1.x §4.4.2.1 Table 3, p. 12): SDMMetaReadKey 16 × 00,
        // e = EF963FF7828658A599F3041510671E88 → C704DE5F1EACC0403D0000DA5CF60941.
        let e = bytes("EF963FF7828658A599F3041510671E88")
        #expect(try AES128Cipher(key: Self.zero).decryptBlock(e) == bytes("C704DE5F1EACC0403D0000DA5CF60941"))
        let picc = try NTAG424PICCData(deciphering: e, metaReadKey: Self.zero)
        #expect(picc.tag == 0xC7)
        #expect(picc.uid == bytes("04DE5F1EACC040"))
        #expect(picc.readCounter == 0x3D)
        #expect(picc.readCounterBytes == bytes("3D0000"))
    }

    @Test("Table 3: SDMENCFileData under SesSDMFileReadENCKey from IVe; the URL's MAC")
    func fileData() throws {
        // AN12196 rev. 2.0 §3.4.3 Table 3 (rev. 1.x §4.4.3 Table 4, p. 13), keys 16 × 00: PICCData
        // FDE4AFA99B5C820A2C1BB0F1C792D0EB (UID 04958CAA5C5E80, counter 1), SesSDMFileReadENCKey,
        // IVe, SDMENCFileData 94592FDE69FA06E8E3B6CA686A22842B → sixteen "x"; the note's URL
        // https://my424dna.com/?picc_data=FDE4…D0EB&enc=9459…842B&cmac=C48B89C17A233B2C
        // (pylibsdm test_parse_uri_enc_data). Its MAC input — the enc text and "&cmac=", as in
        // Table 5 — is our reading of that URL's layout; the MAC it reproduces is the note's.
        let picc = try NTAG424PICCData(deciphering: bytes("FDE4AFA99B5C820A2C1BB0F1C792D0EB"), metaReadKey: Self.zero)
        #expect(picc.uid == bytes("04958CAA5C5E80"))
        #expect(picc.readCounter == 1)
        let keys = try NTAG424SDMSessionKeys(fileReadKey: Self.zero, piccData: picc)
        #expect(keys.encryption == bytes("8097D73344D53F963B09E23E03B62336"))
        #expect(try keys.fileDataIV() == bytes("7B3F3CFC39D3B7FF5868636E38AF7C3A"))
        #expect(try keys.decipherFileData(bytes("94592FDE69FA06E8E3B6CA686A22842B")) == Array("xxxxxxxxxxxxxxxx".utf8))

        let verifier = try NTAG424SUNVerifier(metaReadKey: Self.zero, fileReadKey: Self.zero)
        let message = try verifier.verify(
            piccData: bytes("FDE4AFA99B5C820A2C1BB0F1C792D0EB"),
            encFileData: bytes("94592FDE69FA06E8E3B6CA686A22842B"), mac: bytes("C48B89C17A233B2C"),
            macInput: Array("94592FDE69FA06E8E3B6CA686A22842B&cmac=".utf8))
        #expect(
            message
                == NTAG424SUNMessage(
                    uid: bytes("04958CAA5C5E80"), readCounter: 1,
                    fileData: Array("xxxxxxxxxxxxxxxx".utf8), piccDataTag: 0xC7))
    }

    @Test("Table 4: SDMMAC over the empty input (SDMMACInputOffset = SDMMACOffset)")
    func emptyInputMAC() throws {
        // AN12196 rev. 2.0 §3.4.4.2.1 Table 4 (rev. 1.x §4.4.4.2.1 Table 5, p. 15), keys 16 × 00:
        // https://ntag.nxp.com/424?e=EF963FF7828658A599F3041510671E88&c=94EED9EE65337086, SV2 step 12,
        // SesSDMFileReadMACKey step 13, CMAC of the empty message, SDMMAC step 14.
        let picc = try NTAG424PICCData(deciphering: bytes("EF963FF7828658A599F3041510671E88"), metaReadKey: Self.zero)
        #expect(
            NTAG424SDMSessionKeys.sessionVector(label: NTAG424SDMSessionKeys.macLabel, piccData: picc)
                == bytes("3CC30001008004DE5F1EACC0403D0000"))
        let keys = try NTAG424SDMSessionKeys(fileReadKey: Self.zero, piccData: picc)
        #expect(keys.mac == bytes("3FB5F6E3A807A03D5E3570ACE393776F"))
        #expect(try AESCMAC.mac([], key: keys.mac) == bytes("E194C7EE12D9F7EE8A65C8331B704386"))
        #expect(try keys.sdmMAC() == bytes("94EED9EE65337086"))

        let verifier = try NTAG424SUNVerifier(metaReadKey: Self.zero, fileReadKey: Self.zero)
        let message = try verifier.verify(
            piccData: bytes("EF963FF7828658A599F3041510671E88"), mac: bytes("94EED9EE65337086"))
        #expect(
            message
                == NTAG424SUNMessage(uid: bytes("04DE5F1EACC040"), readCounter: 61, fileData: nil, piccDataTag: 0xC7))
    }

    @Test("Table 5: SDMMAC over the URL text from enc to &cmac=, and SDMENCFileData")
    func textInputMAC() throws {
        // AN12196 rev. 2.0 §3.4.4.2.2 Table 5 (rev. 1.x §4.4.4.2.2 Table 6, p. 17), keys 16 × 00:
        // https://www.my424dna.com/?picc_data=FD91EC264309878BE6345CBE53BADF40&enc=CEE9A53E3E463EF1F459635736738962&cmac=ECC1E7F6C6C73BF6;
        // PICCData C704958CAA5C5E80080000A243C86DFC, SesSDMFileReadMACKey, CMAC, SDMMAC. The file data
        // is sixteen "x" (icedevml/sdm-backend test_libsdm.py test_sun2).
        let e = bytes("FD91EC264309878BE6345CBE53BADF40")
        #expect(try AES128Cipher(key: Self.zero).decryptBlock(e) == bytes("C704958CAA5C5E80080000A243C86DFC"))
        let picc = try NTAG424PICCData(deciphering: e, metaReadKey: Self.zero)
        let keys = try NTAG424SDMSessionKeys(fileReadKey: Self.zero, piccData: picc)
        #expect(keys.mac == bytes("3ED0920E5E6A0320D823D5987FEAFBB1"))
        let input = Array("CEE9A53E3E463EF1F459635736738962&cmac=".utf8)
        #expect(try AESCMAC.mac(input, key: keys.mac) == bytes("81EC45C175E72FF6FAC61BC7AB3BAEF6"))
        #expect(try keys.sdmMAC(over: input) == bytes("ECC1E7F6C6C73BF6"))

        let verifier = try NTAG424SUNVerifier(metaReadKey: Self.zero, fileReadKey: Self.zero)
        let message = try verifier.verify(
            piccData: e, encFileData: bytes("CEE9A53E3E463EF1F459635736738962"),
            mac: bytes("ECC1E7F6C6C73BF6"), macInput: input)
        #expect(
            message
                == NTAG424SUNMessage(
                    uid: bytes("04958CAA5C5E80"), readCounter: 8,
                    fileData: Array("xxxxxxxxxxxxxxxx".utf8), piccDataTag: 0xC7))
    }

    @Test("repository vectors: a plain mirror, and distinct meta and file read keys")
    func repositoryVectors() throws {
        // Not from AN12196: icedevml/sdm-backend test_libsdm.py. test_plain_sdm: uid 041E3C8A2D6B80,
        // ctr 000006 (URL order, most significant first), cmac 4B00064004B0B3D3, file key 16 × 00.
        let plain = try NTAG424SUNVerifier(metaReadKey: nil, fileReadKey: Self.zero)
        let message = try plain.verify(
            uid: bytes("041E3C8A2D6B80"), readCounter: 0x000006, mac: bytes("4B00064004B0B3D3"))
        #expect(
            message == NTAG424SUNMessage(uid: bytes("041E3C8A2D6B80"), readCounter: 6, fileData: nil, piccDataTag: nil))
        // test_plain_sdm_wrong.
        #expect(throws: NTAG424SUNError.macMismatch) {
            try plain.verify(uid: bytes("041E3C8A2D6B80"), readCounter: 6, mac: bytes("AB00064004B0B3AB"))
        }
        // test_sun3_custom: the MAC covers the enc text alone (no "&cmac=" before the MAC).
        let custom = try NTAG424SUNVerifier(
            metaReadKey: bytes("42aff114f2cb3b6141be6dc95dfc5416"),
            fileReadKey: bytes("b62a9baf092439bd43c62aee96b970c5"))
        let customMessage = try custom.verify(
            piccData: bytes("8ACADDEF0A9B62CDAE39A16B83FC14DE"),
            encFileData: bytes("B8436E11F627BB7F543FCC0C1E0D1A89"), mac: bytes("238B2543A8DEBAD8"),
            macInput: Array("B8436E11F627BB7F543FCC0C1E0D1A89".utf8))
        #expect(
            customMessage
                == NTAG424SUNMessage(
                    uid: bytes("041d3c8a2d6b80"), readCounter: 291,
                    fileData: bytes("4e545858716e6f5f6f42467077792d56"), piccDataTag: 0xC7))
    }

    // MARK: - Refusals

    @Test("a tampered MAC, a wrong file key or another input fails the MAC")
    func macRefusals() throws {
        let e = bytes("EF963FF7828658A599F3041510671E88")
        let verifier = try NTAG424SUNVerifier(metaReadKey: Self.zero, fileReadKey: Self.zero)
        #expect(throws: NTAG424SUNError.macMismatch) {
            try verifier.verify(piccData: e, mac: bytes("94EED9EE65337087"))
        }
        #expect(throws: NTAG424SUNError.macMismatch) {
            try verifier.verify(piccData: e, mac: bytes("94EED9EE65337086"), macInput: Array("extra".utf8))
        }
        let otherFileKey = try NTAG424SUNVerifier(
            metaReadKey: Self.zero, fileReadKey: [UInt8](repeating: 0, count: 15) + [1])
        #expect(throws: NTAG424SUNError.macMismatch) {
            try otherFileKey.verify(piccData: e, mac: bytes("94EED9EE65337086"))
        }
        // Table 5's MAC does not verify Table 5's PICCData with Table 4's empty input.
        #expect(throws: NTAG424SUNError.macMismatch) {
            try verifier.verify(
                piccData: bytes("FD91EC264309878BE6345CBE53BADF40"),
                encFileData: bytes("CEE9A53E3E463EF1F459635736738962"), mac: bytes("ECC1E7F6C6C73BF6"))
        }
    }

    @Test("the counter is returned for the caller's replay check, and a changed counter fails the MAC")
    func counterReplay() throws {
        let plain = try NTAG424SUNVerifier(metaReadKey: nil, fileReadKey: Self.zero)
        let first = try plain.verify(uid: bytes("041E3C8A2D6B80"), readCounter: 6, mac: bytes("4B00064004B0B3D3"))
        #expect(first.readCounter == 6)
        // An attacker cannot move an old message's counter forward: the MAC covers it.
        #expect(throws: NTAG424SUNError.macMismatch) {
            try plain.verify(uid: bytes("041E3C8A2D6B80"), readCounter: 7, mac: bytes("4B00064004B0B3D3"))
        }
        // A replayed message verifies again with the same counter; refusing it is the caller's job.
        #expect(
            try plain.verify(uid: bytes("041E3C8A2D6B80"), readCounter: 6, mac: bytes("4B00064004B0B3D3")).readCounter
                == first.readCounter)
    }

    @Test("a wrong meta read key is caught at the PICCData tag or at the MAC")
    func wrongMetaKey() throws {
        let other = [UInt8](repeating: 0, count: 15) + [1]
        let verifier = try NTAG424SUNVerifier(metaReadKey: other, fileReadKey: Self.zero)
        let error = #expect(throws: NTAG424SUNError.self) {
            try verifier.verify(piccData: bytes("EF963FF7828658A599F3041510671E88"), mac: bytes("94EED9EE65337086"))
        }
        switch error {
        case .unexpectedPICCDataTag?, .macMismatch?: break
        default: Issue.record("a wrong SDMMetaReadKey gave \(String(describing: error))")
        }
    }

    @Test("lengths, keys and lookups are checked")
    func inputChecks() throws {
        let verifier = try NTAG424SUNVerifier(metaReadKey: Self.zero, fileReadKey: Self.zero)
        #expect(throws: NTAG424SUNError.invalidLength(.piccData, expected: "16 (AES)", actual: 24)) {
            try verifier.verify(piccData: [UInt8](repeating: 0, count: 24), mac: bytes("94EED9EE65337086"))
        }
        #expect(throws: NTAG424SUNError.invalidLength(.sdmMAC, expected: "8", actual: 4)) {
            try verifier.verify(piccData: bytes("EF963FF7828658A599F3041510671E88"), mac: bytes("94EED9EE"))
        }
        #expect(throws: NTAG424SUNError.invalidKey(.fileRead, length: 8)) {
            try NTAG424SUNVerifier(metaReadKey: Self.zero, fileReadKey: [UInt8](repeating: 0, count: 8))
        }
        #expect(throws: NTAG424SUNError.invalidKey(.metaRead, length: nil)) {
            try NTAG424SUNVerifier(metaReadKey: nil, fileReadKey: Self.zero)
                .verify(piccData: bytes("EF963FF7828658A599F3041510671E88"), mac: bytes("94EED9EE65337086"))
        }
        #expect(throws: NTAG424SUNError.invalidLength(.uid, expected: "7", actual: 4)) {
            try NTAG424PICCData(uid: [1, 2, 3, 4], readCounter: 1)
        }
        #expect(throws: NTAG424SUNError.counterOutOfRange(0x100_0000)) {
            try NTAG424PICCData(uid: nil, readCounter: 0x100_0000)
        }
        let unknown = try NTAG424SUNVerifier(metaReadKey: Self.zero) { _ in nil }
        #expect(throws: NTAG424SUNError.unknownTag(uid: bytes("04DE5F1EACC040"))) {
            try unknown.verify(piccData: bytes("EF963FF7828658A599F3041510671E88"), mac: bytes("94EED9EE65337086"))
        }
        // Per-tag keys: the lookup sees the deciphered UID.
        let perTag = try NTAG424SUNVerifier(metaReadKey: Self.zero) { uid in
            uid == bytes("04DE5F1EACC040") ? Self.zero : nil
        }
        #expect(
            try perTag.verify(piccData: bytes("EF963FF7828658A599F3041510671E88"), mac: bytes("94EED9EE65337086"))
                .readCounter == 61)
        // SDMENCFileData needs UID and counter, and whole blocks.
        let counterOnly = try NTAG424SDMSessionKeys(
            fileReadKey: Self.zero, piccData: NTAG424PICCData(uid: nil, readCounter: 1))
        #expect(throws: NTAG424SUNError.fileDataNeedsUIDAndCounter) { try counterOnly.decipherFileData(Self.zero) }
        let keys = try NTAG424SDMSessionKeys(
            fileReadKey: Self.zero,
            piccData: NTAG424PICCData(uid: bytes("04958CAA5C5E80"), readCounter: 1))
        #expect(throws: NTAG424SUNError.invalidLength(.encFileData, expected: "a positive multiple of 16", actual: 10))
        {
            try keys.decipherFileData([UInt8](repeating: 0, count: 10))
        }
    }
}
