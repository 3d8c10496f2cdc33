import CardFlowSimulator
import Foundation
import Testing

/// Test-side decoder of the 54-byte CCID class descriptor (offsets from the CCID spec table),
/// independent of the production encoder.
private struct DecodedDescriptor: Equatable {
    var bLength, bDescriptorType: UInt8
    var bcdCCID: UInt16
    var bMaxSlotIndex, bVoltageSupport: UInt8
    var dwProtocols, dwDefaultClock, dwMaximumClock: UInt32
    var bNumClockSupported: UInt8
    var dwDataRate, dwMaxDataRate: UInt32
    var bNumDataRatesSupported: UInt8
    var dwMaxIFSD, dwSynchProtocols, dwMechanical, dwFeatures, dwMaxCCIDMessageLength: UInt32
    var bClassGetResponse, bClassEnvelope: UInt8
    var wLcdLayout: UInt16
    var bPINSupport, bMaxCCIDBusySlots: UInt8

    init?(_ b: [UInt8]) {
        guard b.count == 54 else { return nil }
        func u16(_ o: Int) -> UInt16 { UInt16(b[o]) | UInt16(b[o + 1]) << 8 }
        func u32(_ o: Int) -> UInt32 {
            UInt32(b[o]) | UInt32(b[o + 1]) << 8 | UInt32(b[o + 2]) << 16 | UInt32(b[o + 3]) << 24
        }
        bLength = b[0]; bDescriptorType = b[1]; bcdCCID = u16(2); bMaxSlotIndex = b[4]; bVoltageSupport = b[5]
        dwProtocols = u32(6); dwDefaultClock = u32(10); dwMaximumClock = u32(14); bNumClockSupported = b[18]
        dwDataRate = u32(19); dwMaxDataRate = u32(23); bNumDataRatesSupported = b[27]; dwMaxIFSD = u32(28)
        dwSynchProtocols = u32(32); dwMechanical = u32(36); dwFeatures = u32(40); dwMaxCCIDMessageLength = u32(44)
        bClassGetResponse = b[48]; bClassEnvelope = b[49]; wLcdLayout = u16(50); bPINSupport = b[52]
        bMaxCCIDBusySlots = b[53]
    }

    func matches(_ i: ReaderInterfaceProfile) -> Bool {
        bLength == 0x36 && bDescriptorType == i.bDescriptorType && bcdCCID == i.bcdCCID
            && bMaxSlotIndex == i.bMaxSlotIndex && bVoltageSupport == i.bVoltageSupport
            && dwProtocols == i.dwProtocols && dwDefaultClock == i.dwDefaultClock && dwMaximumClock == i.dwMaximumClock
            && bNumClockSupported == i.bNumClockSupported && dwDataRate == i.dwDataRate
            && dwMaxDataRate == i.dwMaxDataRate && bNumDataRatesSupported == i.bNumDataRatesSupported
            && dwMaxIFSD == i.dwMaxIFSD && dwSynchProtocols == i.dwSynchProtocols && dwMechanical == i.dwMechanical
            && dwFeatures == i.dwFeatures && dwMaxCCIDMessageLength == i.dwMaxCCIDMessageLength
            && bClassGetResponse == i.bClassGetResponse && bClassEnvelope == i.bClassEnvelope
            && wLcdLayout == i.wLcdLayout && bPINSupport == i.bPINSupport && bMaxCCIDBusySlots == i.bMaxCCIDBusySlots
    }
}

@Suite("Reader profiles from descriptor dumps")
struct ReaderProfileTests {
    /// The dump's words for each exchange level (dwFeatures bits 16–18).
    static let exchangeLevelWords: [UInt32: String] = [
        0x00000: "Character level exchange",
        0x10000: "TPDU level exchange",
        0x20000: "Short APDU level exchange",
        0x40000: "Short and Extended APDU level exchange",
    ]

    @Test("Every fixture dump parses; descriptors round-trip; exchange-level words match dwFeatures")
    func everyFixture() throws {
        let directory = try Fixtures.requireCCIDReaders()
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.path)
            .filter { $0.hasSuffix(".txt") && $0 != "supported_readers.txt" }
            .sorted()
        #expect(names.count >= 615)
        var failures: [String] = []
        var interfaceCount = 0
        var proprietaryClass = 0
        var multiDevice: [String] = []
        for name in names {
            let path = directory.appendingPathComponent(name).path
            let profiles: [ReaderProfile]
            do {
                profiles = try ReaderProfile.profiles(contentsOfFile: path)
            } catch {
                failures.append("\(name): \(error)")
                continue
            }
            if profiles.count == 1 {
                // Single-device dumps also load through the single-profile initialiser.
                if (try? ReaderProfile(contentsOfFile: path)) != profiles[0] {
                    failures.append("\(name): init differs")
                }
            } else {
                multiDevice.append(name)
            }
            for profile in profiles {
                if profile.interfaces.isEmpty { failures.append("\(name): no interface") }
                for (index, interface) in profile.interfaces.enumerated() {
                    interfaceCount += 1
                    if interface.interfaceClass == 0xFF { proprietaryClass += 1 }
                    let descriptor = profile.classDescriptorBytes(interface: index)
                    if !(DecodedDescriptor(descriptor)?.matches(interface) ?? false) {
                        failures.append("\(name) #\(index): descriptor bytes do not round-trip")
                    }
                    let level = interface.dwFeatures & 0x0007_0000
                    if interface.declaredExchangeLevelText != Self.exchangeLevelWords[level] {
                        failures.append(
                            "\(name) #\(index): dwFeatures \(String(interface.dwFeatures, radix: 16)) "
                                + "but dump says \(interface.declaredExchangeLevelText ?? "nothing")")
                    }
                }
            }
        }
        #expect(multiDevice == ["ELYCTIS_CL_reader.txt"])
        #expect(failures.isEmpty, "\(failures.count) problems: \(failures.prefix(10))")
        #expect(interfaceCount == 691)
        #expect(proprietaryClass == 23)
    }

    @Test("supported_readers.txt is a list, not a dump: typed error at line 1")
    func readerListIsNotADump() throws {
        let url = try Fixtures.dump("supported_readers.txt")
        #expect(throws: ReaderProfileError.unexpectedLine(line: 1, expected: "idVendor", found: "#")) {
            _ = try ReaderProfile(contentsOfFile: url.path)
        }
    }

    @Test("ACR122U PICC: 072F:2200, bcdDevice 2.07, short APDU, 271 bytes, T=1 only, exact descriptor")
    func acr122u() throws {
        let profile = try ReaderProfile(contentsOfFile: Fixtures.dump("ACR122U_PICC.txt").path)
        #expect(profile.vendorID == 0x072F)
        #expect(profile.productID == 0x2200)
        #expect(profile.bcdDevice == 0x0207)
        #expect(profile.manufacturer == "ACS")
        #expect(profile.product == "ACR122U PICC Interface")
        #expect(profile.interfaces.count == 1)
        let interface = try #require(profile.interfaces.first)
        #expect(interface.name == nil) // "Can't get iInterface string"
        #expect(interface.interfaceClass == 0x0B)
        #expect(interface.numberOfEndpoints == 3)
        #expect(interface.dwFeatures == 0x0002_0040)
        #expect(interface.dwMaxCCIDMessageLength == 271)
        #expect(interface.dwProtocols == 0x0000_0002)
        #expect(interface.dwDefaultClock == 4000)
        #expect(interface.dwMaxDataRate == 250_000)
        #expect(interface.dwMaxIFSD == 256)
        #expect(interface.declaredExchangeLevelText == "Short APDU level exchange")
        #expect(
            profile.classDescriptorBytes(interface: 0)
                == bytes(
                    """
                    36 21 00 01 00 07 02 00 00 00 A0 0F 00 00 A0 0F 00 00 00 00 2A 00 00 90 D0 03 00 00
                    00 01 00 00 00 00 00 00 00 00 00 00 40 00 02 00 0F 01 00 00 00 00 00 00 00 01
                    """))
    }

    @Test("ACR1252 dual reader: two interfaces, PICC and SAM")
    func acr1252() throws {
        let profile = try ReaderProfile(contentsOfFile: Fixtures.dump("ACS_ACR1252_Dual_Reader.txt").path)
        #expect(profile.vendorID == 0x072F)
        #expect(profile.productID == 0x223B)
        #expect(profile.interfaces.count == 2)
        #expect(profile.interfaces.map(\.interfaceNumber) == [0, 1])
        #expect(profile.interfaces[0].name?.hasSuffix("PICC") == true)
        #expect(profile.interfaces[1].name?.hasSuffix("SAM") == true)
        #expect(profile.interfaces[0].dwFeatures == 0x0004_0040)
        #expect(profile.interfaces[0].dwMaxCCIDMessageLength == 522)
        #expect(profile.interfaces[1].bcdCCID == 0x0110)
        #expect(profile.interfaces[1].dwProtocols == 0x0000_0003)
        #expect(profile.interfaces[1].dwDefaultClock == 3420)
        #expect(profile.interfaces[1].dwDataRate == 9193)
        #expect(profile.interfaces[1].dwFeatures == 0x0002_04BA)
        #expect(profile.interfaces[1].declaredExchangeLevelText == "Short APDU level exchange")
    }

    @Test("Proprietary class 0xFF interfaces, and a 0xFF class-descriptor type")
    func proprietaryClass() throws {
        let hid = try ReaderProfile(contentsOfFile: Fixtures.dump("HID_5021_CL.txt").path)
        #expect(hid.vendorID == 0x076B)
        #expect(hid.interfaces.count == 3) // the dump repeats the block
        #expect(hid.interfaces.allSatisfy { $0.interfaceClass == 0xFF && $0.bDescriptorType == 0x21 })
        #expect(hid.interfaces[0].bNumClockSupported == 4)
        #expect(hid.interfaces[0].dwMaximumClock == 8000)
        #expect(hid.interfaces[0].dwFeatures == 0x0001_03B0)

        let dell = try ReaderProfile(contentsOfFile: Fixtures.dump("DellSK-3106.txt").path)
        #expect(dell.interfaces.count == 1)
        #expect(dell.interfaces[0].interfaceClass == 0xFF)
        #expect(dell.interfaces[0].interfaceSubClass == 92)
        #expect(dell.interfaces[0].interfaceNumber == 1)
        #expect(dell.interfaces[0].bDescriptorType == 0xFF)
        #expect(dell.interfaces[0].name == "?????")
        #expect(dell.classDescriptorBytes(interface: 0).prefix(2) == [0x36, 0xFF])
    }

    @Test("Irregular dumps: CRLF, wrapped line, unprefixed features, odd versions and sizes")
    func irregularDumps() throws {
        let bit4id = try ReaderProfile(contentsOfFile: Fixtures.dump("Bit4id_Digital_DNA_Key_v2.txt").path)
        #expect(bit4id.vendorID == 0x25DD)
        #expect(bit4id.product == "Digital-DNA Key")
        #expect(bit4id.interfaces.first?.name == "CCID")

        let verisign = try ReaderProfile(contentsOfFile: Fixtures.dump("Verisign_secure_token.txt").path)
        #expect(verisign.interfaces.first?.declaredExchangeLevelText == "TPDU level exchange")
        #expect(verisign.interfaces.first?.numberOfEndpoints == 2)

        let yubikey = try ReaderProfile(contentsOfFile: Fixtures.dump("Yubico_Yubikey_neo.txt").path)
        #expect(yubikey.interfaces.first?.declaredExchangeLevelText == "Short and Extended APDU level exchange")

        let smartPad = try ReaderProfile(contentsOfFile: Fixtures.dump("MySmartPad.txt").path)
        #expect(smartPad.interfaces.first?.dwDefaultClock == 1_024_000)

        let precise = try ReaderProfile(contentsOfFile: Fixtures.dump("Precise_200_MC_Upgrade.txt").path)
        #expect(precise.bcdDevice == 0x2E3D)
        #expect(precise.interfaces.first?.dwMaxCCIDMessageLength == 524_288)

        let crescendo = try ReaderProfile(contentsOfFile: Fixtures.dump("HID_Global_Crescendo_Key_0x0028.txt").path)
        #expect(crescendo.bcdDevice == 0x0100)

        let reiner = try ReaderProfile(contentsOfFile: Fixtures.dump("ReinerSCT.txt").path)
        #expect(reiner.interfaces.first?.bcdCCID == 0x1000)

        let atr220 = try ReaderProfile(contentsOfFile: Fixtures.dump("Access_IS_ATR220_0x0184.txt").path)
        #expect(atr220.interfaces.map(\.name) == ["NFC0", "SMC0", "SMC1", "SMC2", "SMC3"])
    }

    @Test("A dump with two devices: profiles(contentsOfFile:) splits them, init reports it")
    func twoDevices() throws {
        let path = try Fixtures.dump("ELYCTIS_CL_reader.txt").path
        let profiles = try ReaderProfile.profiles(contentsOfFile: path)
        #expect(profiles.map(\.vendorID) == [0x1FFA, 0x04E6])
        #expect(profiles.map(\.productID) == [0x0002, 0x5810])
        #expect(profiles.map(\.product) == ["CL reader", "CNT reader"])
        #expect(profiles.map(\.interfaces.count) == [1, 2])
        #expect(
            throws: ReaderProfileError.inconsistentDevice(
                line: 56, field: "idVendor", expected: "0x1FFA", found: "0x04E6")
        ) {
            _ = try ReaderProfile(contentsOfFile: path)
        }
    }

    @Test("Profiles are Codable")
    func codable() throws {
        let profile = try ReaderProfile(contentsOfFile: Fixtures.dump("ACS_ACR1252_Dual_Reader.txt").path)
        let data = try JSONEncoder().encode(profile)
        #expect(try JSONDecoder().decode(ReaderProfile.self, from: data) == profile)
    }

    // MARK: - Errors

    private static let minimalDump = """
         idVendor: 0x1234
          iManufacturer: Test
         idProduct: 0x5678
          iProduct: Test Reader
         bcdDevice: 1.00 (firmware release?)
         bLength: 9
         bDescriptorType: 4
         bInterfaceNumber: 0
         bAlternateSetting: 0
         bNumEndpoints: 3
         bInterfaceClass: 0x0B [Chip Card Interface Device Class (CCID)]
         bInterfaceSubClass: 0
         bInterfaceProtocol: 0
         iInterface: Test PICC
         CCID Class Descriptor
          bLength: 0x36
          bDescriptorType: 0x21
          bcdCCID: 1.10
          bMaxSlotIndex: 0x00
          bVoltageSupport: 0x07
          dwProtocols: 0x0000 0x0002
          dwDefaultClock: 4.000 MHz
          dwMaximumClock: 4.000 MHz
          bNumClockSupported: 0 (will use whatever is returned)
          dwDataRate: 10752 bps
          dwMaxDataRate: 250000 bps
          bNumDataRatesSupported: 0 (will use whatever is returned)
          dwMaxIFSD: 254
          dwSynchProtocols: 0x00000000
          dwMechanical: 0x00000000
          dwFeatures: 0x00040040
           ....40 Automatic parameters negotiation made by the CCID
           04.... Short and Extended APDU level exchange
          dwMaxCCIDMessageLength: 522 bytes
          bClassGetResponse: 0xFF
          bClassEnvelope: 0xFF
          wLcdLayout: 0x0000
          bPINSupport: 0x00
          bMaxCCIDBusySlots: 1
        """

    private func parseError(_ text: String) -> ReaderProfileError? {
        do {
            _ = try ReaderProfile(parsing: text)
            return nil
        } catch {
            return error
        }
    }

    private func replacing(_ from: String, with to: String) -> String {
        precondition(Self.minimalDump.contains(from))
        return Self.minimalDump.replacingOccurrences(of: from, with: to)
    }

    @Test("A minimal dump parses")
    func minimal() throws {
        let profile = try ReaderProfile(parsing: Self.minimalDump)
        #expect(profile.interfaces.first?.name == "Test PICC")
        #expect(profile.interfaces.first?.bcdCCID == 0x0110)
        #expect(profile.interfaces.first?.bClassGetResponse == 0xFF)
    }

    @Test("Malformed values name the line and what was expected")
    func malformedValues() {
        let clock = parseError(replacing("dwDefaultClock: 4.000 MHz", with: "dwDefaultClock: 4000 kHz"))
        #expect(clock?.line == 22)
        #expect(
            clock
                == .malformedValue(
                    line: 22, field: "dwDefaultClock", expected: "a clock like 4.000 MHz", found: "4000 kHz"))
        #expect(parseError(replacing("dwProtocols: 0x0000 0x0002", with: "dwProtocols: 0x00000002"))?.line == 21)
        #expect(parseError(replacing("bMaxSlotIndex: 0x00", with: "bMaxSlotIndex: 0x100"))?.line == 19)
        #expect(
            parseError(replacing("dwMaxCCIDMessageLength: 522 bytes", with: "dwMaxCCIDMessageLength: 522"))?.line == 34)
        #expect(parseError(replacing("bcdDevice: 1.00", with: "bcdDevice: one"))?.line == 5)
        let expected = parseError(replacing("dwMaxIFSD: 254", with: "dwMaxIFSD: many"))?.expected ?? ""
        #expect(expected.contains("dwMaxIFSD"))
        #expect(expected.contains("decimal"))
    }

    @Test("Structural errors: missing, duplicate and unknown fields, inconsistent blocks, no block")
    func structuralErrors() {
        #expect(
            parseError(replacing("  bPINSupport: 0x00\n", with: "")) == .missingField(line: 1, field: "bPINSupport"))
        #expect(parseError(replacing("  bLength: 0x36\n", with: "")) == .missingField(line: 1, field: "bLength"))
        #expect(
            parseError(replacing(" bNumEndpoints: 3\n", with: " bNumEndpoints: 3\n bNumEndpoints: 2\n"))
                == .duplicateField(line: 11, field: "bNumEndpoints"))
        #expect(
            parseError(replacing("  wLcdLayout: 0x0000", with: "  wLcdLayout: 0x0000\n  bFancy: 1"))
                == .unexpectedLine(line: 38, expected: "a descriptor field", found: "bFancy: 1"))
        let second = Self.minimalDump.replacingOccurrences(of: "idProduct: 0x5678", with: "idProduct: 0x9999")
        #expect(
            parseError(Self.minimalDump + "\n" + second)
                == .inconsistentDevice(line: 42, field: "idProduct", expected: "0x5678", found: "0x9999"))
        #expect(parseError("") == .noInterface)
        #expect(parseError("\n  \n") == .noInterface)
        #expect(
            parseError("hello\n" + Self.minimalDump) == .unexpectedLine(line: 1, expected: "idVendor", found: "hello"))
        #expect(
            parseError(
                replacing(" iInterface: Test PICC", with: " iInterface: Test PICC\n Can't get iInterface string"))
                == .duplicateField(line: 15, field: "iInterface"))
    }

    @Test("Two blocks make two interfaces; CRLF and trailing spaces are accepted")
    func multipleBlocks() throws {
        let sam = Self.minimalDump
            .replacingOccurrences(of: "bInterfaceNumber: 0", with: "bInterfaceNumber: 1")
            .replacingOccurrences(of: "iInterface: Test PICC", with: "iInterface: Test SAM  ")
        let text = (Self.minimalDump + "\n" + sam).replacingOccurrences(of: "\n", with: "\r\n")
        let profile = try ReaderProfile(parsing: text)
        #expect(profile.interfaces.map(\.name) == ["Test PICC", "Test SAM"])
        #expect(profile.interfaces.map(\.interfaceNumber) == [0, 1])
        #expect(profile.classDescriptorBytes(interface: 1) == profile.interfaces[1].classDescriptorBytes)
    }

    @Test("An unreadable path is a typed error")
    func unreadablePath() {
        do {
            _ = try ReaderProfile(contentsOfFile: "/nonexistent/reader.txt")
            Issue.record("read a missing file")
        } catch {
            if case .unreadableFile(let path, _) = error {
                #expect(path == "/nonexistent/reader.txt")
            } else {
                Issue.record("unexpected \(error)")
            }
        }
    }
}
