import CardFlow
import Testing

/// ATRs published for real cards (pcsc-tools' list, reader manuals) and what PC/SC part 3 and
/// ISO/IEC 7816-4 say they mean.
@Suite("ATR identification")
struct ATRIdentificationTests {
    private func identify(_ hex: String) throws -> ATRIdentification {
        ATRIdentification(atr: try [UInt8](hex: hex))
    }

    @Test(
        "PC/SC part 3 storage cards are named from the standard and card-name bytes",
        arguments: [
            (
                "3B 8F 80 01 80 4F 0C A0 00 00 03 06 03 00 01 00 00 00 00 6A", "MIFARE Classic 1K",
                "ISO/IEC 14443 A part 3"
            ),
            (
                "3B 8F 80 01 80 4F 0C A0 00 00 03 06 03 00 02 00 00 00 00 69", "MIFARE Classic 4K",
                "ISO/IEC 14443 A part 3"
            ),
            (
                "3B 8F 80 01 80 4F 0C A0 00 00 03 06 03 00 03 00 00 00 00 68", "MIFARE Ultralight",
                "ISO/IEC 14443 A part 3"
            ),
            ("3B 8F 80 01 80 4F 0C A0 00 00 03 06 03 00 26 00 00 00 00 4D", "MIFARE Mini", "ISO/IEC 14443 A part 3"),
            ("3B 8F 80 01 80 4F 0C A0 00 00 03 06 11 00 3B 00 00 00 00 42", "FeliCa", "FeliCa"),
            ("3B 8F 80 01 80 4F 0C A0 00 00 03 06 0B 00 14 00 00 00 00 77", "ICODE SLI", "ISO/IEC 15693 part 3"),
        ])
    func storageCards(atr: String, name: String, standard: String) throws {
        let identification = try identify(atr)
        #expect(identification.kind == .contactlessStorage && identification.isContactless)
        #expect(ATRIdentification.isContactless(atr: identification.atr))
        #expect(identification.name == name)
        #expect(identification.standard?.name == standard)
        #expect(identification.historicalBytes == nil)
        #expect(identification.details.contains("card name: \(name)"), "\(identification.details)")
    }

    @Test func ultralightMentionsTheNFCForumType2TagsThatLookAlike() throws {
        let details = try identify("3B8F8001804F0CA0000003060300030000000068").details
        #expect(details.contains { $0.contains("NTAG") }, "\(details)")
    }

    @Test func unlistedAndVendorCardNamesAreShownAsBytes() throws {
        // ACS readers report Topaz as F0 04, which the PC/SC table does not list.
        let topaz = try identify("3B 8F 80 01 80 4F 0C A0 00 00 03 06 03 F0 04 00 00 00 00 9F")
        #expect(topaz.kind == .contactlessStorage)
        #expect(topaz.name == nil)
        #expect(topaz.cardName?.description == "card name F004")
        #expect(ContactlessCardName(rawValue: 0x0005).name == nil)
        #expect(ContactlessCardName(rawValue: 0x003E).name == nil)
        #expect(ContactlessStandard(rawValue: 0x04).description == "RFU standard 04")
        // 00 00: "no information given" is no name for the card.
        #expect(try identify("3B 8F 80 01 80 4F 0C A0 00 00 03 06 03 00 00 00 00 00 00 6B").name == nil)
    }

    @Test func desfireIsAnISODEPCardWithAnEmptyCompactTLVCategory() throws {
        let desfire = try identify("3B 81 80 01 80 80")
        #expect(desfire.kind == .contactlessISODEP && desfire.isContactless)
        #expect(desfire.name == nil)
        #expect(desfire.historicalBytes?.category == .compactTLV)
        #expect(desfire.historicalBytes?.objects == [])
        #expect(desfire.details.contains("  category 80: no COMPACT-TLV objects"), "\(desfire.details)")
    }

    @Test func jcopHistoricalBytesAreProprietaryText() throws {
        let jcop = try identify("3B 8A 80 01 4A 43 4F 50 34 31 56 32 32 31 7F")
        #expect(jcop.kind == .contactlessISODEP)
        #expect(jcop.historicalBytes?.category == .proprietary)
        #expect(jcop.historicalBytes?.text == "JCOP41V221")
    }

    @Test func isoDEPWithoutHistoricalBytes() throws {
        let card = try identify("3B 80 80 01 01")
        #expect(card.kind == .contactlessISODEP)
        #expect(card.historicalBytes?.bytes == [])
    }

    @Test("a contact card's COMPACT-TLV objects and status indicator (Gemalto IDPrime MD, T=0)")
    func contactCardCompactTLV() throws {
        let card = try identify("3B 7F 96 00 00 80 31 80 65 B0 84 41 3D F6 12 0F FE 82 90 00")
        #expect(card.kind == .contact && !card.isContactless && !ATRIdentification.isContactless(atr: card.atr))
        #expect(card.layout?.checkByte == nil)
        let historical = try #require(card.historicalBytes)
        #expect(historical.category == .compactTLV)
        #expect(historical.objects.map(\.tag) == [0x3, 0x6, 0x1, 0x8])
        #expect(historical.objects[1].value == [0xB0, 0x84, 0x41, 0x3D, 0xF6])
        #expect(historical.statusWord == 0x9000)
        #expect(card.details.contains("protocols: T=0"), "\(card.details)")
        #expect(card.details.contains("  card service data: 80"), "\(card.details)")
    }

    @Test("card capabilities and issuer's data (YubiKey 5 NFC, T=1)")
    func contactCardCapabilities() throws {
        let card = try identify("3B FD 13 00 00 81 31 FE 15 80 73 C0 21 C0 57 59 75 62 69 4B 65 79 40")
        #expect(card.kind == .contact)
        #expect(card.layout?.protocols == [1, 1])
        #expect(card.layout?.checksumIsValid == true)
        let objects = try #require(card.historicalBytes?.objects)
        #expect(objects.map(\.tag) == [0x7, 0x5])
        #expect(objects[0].description == "card capabilities: C021C0 (command chaining, extended Lc and Le)")
        #expect(objects[1].description == "card issuer's data: 597562694B6579 (\"YubiKey\")")
    }

    @Test func categoryZeroCarriesTheStatusInTheLastThreeBytes() {
        let historical = HistoricalBytes([0x00, 0x31, 0xC0, 0x05, 0x90, 0x00])
        #expect(historical.category == .compactTLVWithStatus)
        #expect(historical.objects.map(\.tag) == [0x3])
        #expect(historical.objects.map(\.value) == [[0xC0]])
        #expect(historical.lifeCycleStatus == 0x05)
        #expect(historical.lifeCycleDescription == "operational state (activated)")
        #expect(historical.statusWord == 0x9000)
        #expect(!historical.malformed)
    }

    @Test func compactTLVThatRunsPastTheEndIsMalformed() {
        let historical = HistoricalBytes([0x80, 0x45, 0x01, 0x02])
        #expect(historical.malformed)
        #expect(historical.objects.isEmpty)
    }

    @Test func badChecksumIsReportedButTheCardIsStillNamed() throws {
        let card = try identify("3B 8F 80 01 80 4F 0C A0 00 00 03 06 03 00 01 00 00 00 00 00")
        #expect(card.layout?.checksumIsValid == false)
        #expect(card.name == "MIFARE Classic 1K")
        #expect(card.details.contains { $0.hasPrefix("TCK 00 is wrong") }, "\(card.details)")
    }

    @Test(
        "malformed ATRs are named as such",
        arguments: [
            ("3B", ATRLayoutError.tooShort(1)),
            ("3C 00", .invalidInitialCharacter(0x3C)),
            ("3B 8F 80 01 80", .truncated),
            ("3B 81 80 01 80", .missingCheckByte),
            ("3B 00 00", .trailingBytes(1)),
        ])
    func malformed(atr: String, error: ATRLayoutError) throws {
        let card = try identify(atr)
        #expect(card.kind == .malformed)
        #expect(card.layoutError == error)
        #expect(card.details.contains(error.description))
    }

    /// The session's in-place check must give the full identification's answer for any bytes:
    /// published ATRs, every change of one byte of a part 3 ATR (TS, T0's nibbles, TD1, TD2, a
    /// length off by one either way) and seeded random byte strings that start like one.
    @Test func theInPlaceContactlessCheckAgreesWithTheIdentification() throws {
        let published = [
            "3B 8F 80 01 80 4F 0C A0 00 00 03 06 03 00 01 00 00 00 00 6A",
            "3B 81 80 01 80 80", "3B 80 80 01 01", "3B 8C 80 01 50 12 23 45 56 12 53 54 4E 33 81 C3 55",
            "3B 7F 96 00 00 80 31 80 65 B0 85 03 00 EF 12 0F FF 82 90 00",
            "3B F8 13 00 00 81 31 FE 15 59 75 62 69 6B 65 79 34 D4", "3B 00", "3F 80 80 01 01",
        ]
        var cases = try published.map { try [UInt8](hex: $0) }
        let base = try [UInt8](hex: "3B 84 80 01 11 22 33 44 00")
        for index in base.indices {
            for value in [0x00, 0x01, 0x3B, 0x3F, 0x7F, 0x80, 0x81, 0x8F, 0x90, 0xC0, 0xFF] as [UInt8] {
                var changed = base
                changed[index] = value
                cases.append(changed)
            }
        }
        cases += [Array(base.dropLast()), base + [0x00], [], [0x3B], [0x3B, 0x80], [0x3B, 0x80, 0x80, 0x01]]
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        for _ in 0..<2_000 {
            state ^= state << 13
            state ^= state >> 7
            state ^= state << 17
            let length = Int(state % 12)
            var bytes: [UInt8] = [0x3B, 0x80 | UInt8(truncatingIfNeeded: state >> 8) & 0x8F, 0x80, 0x01]
            bytes += (0..<length).map { UInt8(truncatingIfNeeded: state >> (($0 % 7) * 8)) }
            cases.append(bytes)
        }
        for atr in cases {
            #expect(
                ATRIdentification.isContactless(atr: atr) == ATRIdentification(atr: atr).isContactless,
                "\(atr.hexString)")
        }
        #expect(cases.contains { ATRIdentification.isContactless(atr: $0) })
        #expect(cases.contains { !ATRIdentification.isContactless(atr: $0) })
    }
}
