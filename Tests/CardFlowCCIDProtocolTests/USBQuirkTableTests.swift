import Testing

@testable import CardFlowCCIDProtocol

@Suite("Reader quirk table")
struct USBQuirkTableTests {
    static let shortAPDU = CCIDClassDescriptor(
        features: CCIDFeatures(rawValue: 0x0002_04BA), maxMessageLength: 271, pinSupport: 3)
    static let tpdu = CCIDClassDescriptor(features: CCIDFeatures(rawValue: 0x0001_0030), maxMessageLength: 271)

    @Test func acr122uWithCurrentFirmware() {
        let profile = CCIDReaderQuirkTable.lookup(vendorID: 0x072F, productID: 0x2200, bcdDevice: 0x0207)
        #expect(profile.model == "ACS ACR122U")
        #expect(profile.quirks == [.noSetInterface, .acceptsPreviousSequence])
        #expect(profile.warnings.isEmpty)
        #expect(profile.initialStatusTimeout == .seconds(30))
        #expect(profile.exchangeLevelOverride == nil)
    }

    @Test func acr122uBelowFirmware206IsWarned() throws {
        let profile = CCIDReaderQuirkTable.lookup(vendorID: 0x072F, productID: 0x2200, bcdDevice: 0x0204)
        #expect(profile.quirks == [.noSetInterface, .acceptsPreviousSequence])
        let warning = try #require(profile.warnings.first)
        #expect(profile.warnings.count == 1)
        #expect(warning.contains("firmware below 2.06 fails APDUs with Le=0x7B, SW 63 00"))
        #expect(warning.contains("2.04"))
        #expect(warning.contains("0x0204"))
    }

    @Test func scl010BelowFirmware112IsWarned() {
        #expect(CCIDReaderQuirkTable.lookup(vendorID: 0x04E6, productID: 0x5291, bcdDevice: 0x0111).warnings.count == 1)
        #expect(CCIDReaderQuirkTable.lookup(vendorID: 0x04E6, productID: 0x5291, bcdDevice: 0x0112).warnings.isEmpty)
    }

    @Test func slowStatusReaders() {
        #expect(
            CCIDReaderQuirkTable.lookup(vendorID: 0x04E6, productID: 0x5293, bcdDevice: 0x0112).initialStatusTimeout
                == .seconds(12))
        #expect(
            CCIDReaderQuirkTable.lookup(vendorID: 0x09D8, productID: 0x0428, bcdDevice: 0x0100).initialStatusTimeout
                == .seconds(30))
    }

    @Test(
        arguments: [(0x076B, 0x3031), (0x076B, 0x6632), (0x076B, 0x3A21), (0x046A, 0x00A7), (0x0BF8, 0x1024)]
            as [(UInt16, UInt16)])
    func readersForcedToExtendedAPDU(vendorID: UInt16, productID: UInt16) {
        let profile = CCIDReaderQuirkTable.lookup(vendorID: vendorID, productID: productID, bcdDevice: 0x0100)
        let corrected = profile.applied(to: Self.shortAPDU)
        #expect(corrected.exchangeLevel == .extendedAPDU)
        #expect(corrected.pinSupport == 0)
        // Everything else in dwFeatures stays.
        #expect(corrected.features.rawValue & ~0x0007_0000 == Self.shortAPDU.features.rawValue & ~0x0007_0000)
        #expect(corrected.maxMessageLength == 271)
    }

    @Test func cherryKC1000SCOnlyWithFirmware100AnnouncingShortAPDU() {
        let old = CCIDReaderQuirkTable.lookup(vendorID: 0x046A, productID: 0x00A1, bcdDevice: 0x0100)
        #expect(old.applied(to: Self.shortAPDU).exchangeLevel == .extendedAPDU)
        #expect(old.applied(to: Self.tpdu).exchangeLevel == .tpdu)
        let newer = CCIDReaderQuirkTable.lookup(vendorID: 0x046A, productID: 0x00A1, bcdDevice: 0x0101)
        #expect(newer.exchangeLevelOverride == nil)
        #expect(newer.applied(to: Self.shortAPDU) == Self.shortAPDU)
    }

    @Test func kobilTriBankForcedToShortAPDU() {
        let extended = CCIDClassDescriptor(features: CCIDFeatures(rawValue: 0x0004_04BA), maxMessageLength: 271)
        let profile = CCIDReaderQuirkTable.lookup(vendorID: 0x0D46, productID: 0x3010, bcdDevice: 0x0100)
        #expect(profile.applied(to: extended).exchangeLevel == .shortAPDU)
    }

    @Test("AU9540: a card that could run at 231 250 bps is run at 115 625, as pcsc-lite's driver chose")
    func alcorAU9540IsHeldTo200000bps() throws {
        // The AU9540's descriptor (Tests/Fixtures/ccid-readers/AU9540.txt): 3.7 MHz, dwMaxDataRate
        // 318 280 bps, short and extended APDU level with automatic PPS; a part of its rate list.
        let descriptor = CCIDClassDescriptor(
            protocols: [.t0, .t1], defaultClock: 3700, maximumClock: 3700, dataRate: 9946, maxDataRate: 318_280,
            features: CCIDFeatures(rawValue: 0x0004_04BE), maxMessageLength: 271)
        let rates: [UInt32] = [9946, 115_625, 198_925, 212_186, 231_250, 318_280]
        let profile = CCIDReaderQuirkTable.lookup(vendorID: 0x058F, productID: 0x9540, bcdDevice: 0x0100)
        #expect(profile.maximumDataRate == 200_000)
        let corrected = profile.applied(to: descriptor)
        #expect(corrected.maxDataRate == 200_000 && corrected.features == descriptor.features)
        // A T=0 card with TA1 96 (Fi 512, Di 32): 231 250 bps at 3.7 MHz. libccid logged "Reader
        // can't do more than 200000 bauds", "Set adapted speed to 115625 bauds" and sent
        // SetParameters with bmFindexDindex 95.
        let atr = try AnswerToReset(bytes: [0x3B, 0x18, 0x96, 0x43, 0x61, 0x72, 0x64, 0x46, 0x6C, 0x6F, 0x77])
        let held = try ProtocolSelection(atr: atr, descriptor: corrected, supportedDataRates: rates)
        #expect(held.factors.rawValue == 0x95)
        #expect(held.parameters()?.bytes.first == 0x95)
        // Without the table's correction the reader's own descriptor allows TA1 96.
        let unheld = try ProtocolSelection(atr: atr, descriptor: descriptor, supportedDataRates: rates)
        #expect(unheld.factors.rawValue == 0x96)
    }

    @Test("O2Micro Oz776: no PPS; the card runs its default protocol at the default speed")
    func o2MicroWithoutPPS() throws {
        for productID: UInt16 in [0x7762, 0x7772] {
            let profile = CCIDReaderQuirkTable.lookup(vendorID: 0x0B97, productID: productID, bcdDevice: 0x0100)
            #expect(profile.quirks == [.noPPS])
        }
        // A character-level reader offering both protocols (the Oz776's dwFeatures level 0).
        let reader = CCIDClassDescriptor(
            protocols: [.t0, .t1], defaultClock: 4000, maximumClock: 4000, dataRate: 10752, maxDataRate: 344_086,
            features: [], maxMessageLength: 271)
        // T=0 first, T=1 offered, TA1 96: with a PPS, T=1 at TA1 96; without, T=0 at 11.
        let dual = try AnswerToReset(bytes: [
            0x3B, 0x98, 0x96, 0x80, 0x11, 0xFE, 0x43, 0x61, 0x72, 0x64, 0x46, 0x6C, 0x6F, 0x77, 0x67,
        ])
        let negotiated = try ProtocolSelection(atr: dual, descriptor: reader)
        #expect(negotiated.transmissionProtocol == .t1 && negotiated.ppsRequest != nil)
        let quiet = try ProtocolSelection(atr: dual, descriptor: reader, hostMaySendPPS: false)
        #expect(quiet.transmissionProtocol == .t0 && quiet.factors == .default && quiet.ppsRequest == nil)
        #expect(quiet.parameters()?.bytes.first == 0x11)
        // T=1 only: T=1 without PPS (pcsc-lite's driver falls back to T=0 there and the card is mute).
        // (JavaCOS A22: T=1 only, TA1 95.)
        let t1Only = try AnswerToReset(bytes: [
            0x3B, 0x9F, 0x95, 0x81, 0x31, 0xFE, 0x9F, 0x00, 0x66, 0x46, 0x53, 0x05, 0x10, 0x00, 0xFF, 0x71, 0xDF, 0x00,
            0x00, 0x00, 0x00, 0x00, 0xEC,
        ])
        let t1 = try ProtocolSelection(atr: t1Only, descriptor: reader, hostMaySendPPS: false)
        #expect(t1.transmissionProtocol == .t1 && t1.ppsRequest == nil)
        // Asking for the protocol the card does not start with cannot work without a PPS.
        #expect(throws: ProtocolSelectionError.self) {
            try ProtocolSelection(atr: dual, descriptor: reader, preference: .t1, hostMaySendPPS: false)
        }
    }

    @Test func unknownReadersGetAnEmptyProfile() {
        let profile = CCIDReaderQuirkTable.lookup(vendorID: 0x1209, productID: 0x2702, bcdDevice: 0x0100)
        #expect(profile == CCIDReaderQuirkProfile())
        #expect(profile.applied(to: Self.shortAPDU) == Self.shortAPDU)
    }

    @Test func profileQuirksJoinTheConfiguration() {
        var configuration = CCIDDriverConfiguration()
        configuration.quirks = [.acceptsPreviousSequence]
        let profile = CCIDReaderQuirkProfile(quirks: [.noSetInterface])
        #expect(profile.applied(to: configuration).quirks == [.acceptsPreviousSequence, .noSetInterface])
    }
}
