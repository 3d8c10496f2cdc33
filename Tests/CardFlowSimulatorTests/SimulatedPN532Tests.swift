import CardFlowCCIDProtocol
import CardFlowCrypto
import CardFlowSimulator
import CardFlowSimulatorCards
import Testing

/// The ACR122U's PN532 as libnfc and nfcpy drive it, checked against the byte layouts of the
/// PN532 user manual (UM0701-02) and the ACR122U API manual (v2.04).
@Suite("Simulated ACR122U: a PN532 behind CCID")
struct SimulatedPN532Tests {
    /// `FF 00 00 00 Lc D4 …`, the ACR122U's direct transmit to its PN532.
    static func direct(_ frame: [UInt8]) -> [UInt8] {
        [0xFF, 0x00, 0x00, 0x00, UInt8(frame.count)] + frame
    }

    static func ntag() -> any VirtualCard {
        var card = SimulatedNTAG21xCard(seed: 3, model: .ntag213)
        card.placed(onReaderWithVendorID: 0x072F, productID: 0x2200)
        return card
    }

    @Test("with no card: GetFirmwareVersion D4 02 → D5 03 32 01 06 07, the version string, LED state")
    func readerAnswersWithoutCard() {
        var firmware = ACR122UFirmware(bcdDevice: 0x0207)
        var field: (any VirtualCard)? = nil
        #expect(
            firmware.answer(Self.direct([0xD4, 0x02]), field: &field) == [
                0xD5, 0x03, 0x32, 0x01, 0x06, 0x07, 0x90, 0x00,
            ])
        // ACR122U API §: ten ASCII bytes, no status word.
        #expect(firmware.answer([0xFF, 0x00, 0x48, 0x00, 0x00], field: &field) == Array("ACR122U207".utf8))
        // P2 0F: red and green on, both masks set → 90 03; P2 0C: both off → 90 00.
        #expect(
            firmware.answer([0xFF, 0x00, 0x40, 0x0F, 0x04, 0x00, 0x00, 0x00, 0x00], field: &field) == [0x90, 0x03])
        #expect(
            firmware.answer([0xFF, 0x00, 0x40, 0x0C, 0x04, 0x00, 0x00, 0x00, 0x00], field: &field) == [0x90, 0x00])
        #expect(firmware.answer([0xFF, 0x00, 0x51, 0x7F, 0x00], field: &field) == [0x90, 0x7F])
        #expect(firmware.answer([0xFF, 0x00, 0x50, 0x00, 0x00], field: &field) == [0x90, 0x7F])
        #expect(firmware.answer(Self.direct([0xD4, 0x14, 0x01]), field: &field) == [0xD5, 0x15, 0x90, 0x00])
        #expect(firmware.answer(Self.direct([0xD4, 0x32, 0x01, 0x01]), field: &field) == [0xD5, 0x33, 0x90, 0x00])
        #expect(firmware.answer(Self.direct([0xD4, 0x12, 0x14]), field: &field) == [0xD5, 0x13, 0x90, 0x00])
        // An empty field: NbTg 00, and the REQA still in the CIU FIFO (nfcpy reads it).
        #expect(
            firmware.answer(Self.direct([0xD4, 0x4A, 0x01, 0x00]), field: &field) == [0xD5, 0x4B, 0x00, 0x90, 0x00])
        #expect(
            firmware.answer(Self.direct([0xD4, 0x06, 0x63, 0x39]), field: &field) == [0xD5, 0x07, 0x26, 0x90, 0x00])
        // No target: InDataExchange is out of context (status 27).
        #expect(
            firmware.answer(Self.direct([0xD4, 0x40, 0x01, 0x30, 0x00]), field: &field) == [
                0xD5, 0x41, 0x27, 0x90, 0x00,
            ])
        // An unknown command and a malformed one: the PN532's error frame, 63 7F on the ACR122U.
        #expect(firmware.answer(Self.direct([0xD4, 0xEE]), field: &field) == [0x63, 0x7F])
        #expect(firmware.answer(Self.direct([0xD4, 0x06, 0x63]), field: &field) == [0x63, 0x7F])
        // Card APDUs and PC/SC part 3 GET DATA are not the firmware's.
        #expect(firmware.answer([0xFF, 0xCA, 0x00, 0x00, 0x00], field: &field) == nil)
        #expect(firmware.answer([0x00, 0xA4, 0x04, 0x00, 0x00], field: &field) == nil)
    }

    @Test("Diagnose line test echoes; WriteRegister then ReadRegister returns what was written")
    func diagnoseAndRegisters() {
        var chip = SimulatedPN532()
        var field: (any VirtualCard)? = nil
        let data: [UInt8] = [0x00] + (0..<200).map { UInt8($0) }
        #expect(chip.answer([0xD4, 0x00] + data, field: &field) == [0xD5, 0x01] + data)
        #expect(chip.answer([0xD4, 0x08, 0x63, 0x05, 0x40, 0x63, 0x03, 0x00], field: &field) == [0xD5, 0x09])
        #expect(chip.answer([0xD4, 0x06, 0x63, 0x05, 0x63, 0x03], field: &field) == [0xD5, 0x07, 0x40, 0x00])
    }

    @Test("NTAG213: InListPassiveTarget 106 kbps A, InDataExchange READ and WRITE, InRelease")
    func type2TagThroughInDataExchange() throws {
        var chip = SimulatedPN532()
        var field: (any VirtualCard)? = Self.ntag()
        let uid = try #require(field?.uid)
        // SENS_RES 00 44 (double-size UID), SEL_RES 00, NFCIDLength 07.
        #expect(
            chip.answer([0xD4, 0x4A, 0x01, 0x00], field: &field) == [0xD5, 0x4B, 0x01, 0x01, 0x00, 0x44, 0x00, 0x07]
                + uid)
        let page0 = try #require(chip.answer([0xD4, 0x40, 0x01, 0x30, 0x00], field: &field))
        #expect(page0.prefix(3) == [0xD5, 0x41, 0x00])
        #expect(Array(page0.dropFirst(3).prefix(3)) == Array(uid.prefix(3)))
        #expect(page0.count == 3 + 16)
        // WRITE page 6: the tag's 4-bit ACK is absorbed, status 00 and no data.
        #expect(chip.answer([0xD4, 0x40, 0x01, 0xA2, 0x06, 1, 2, 3, 4], field: &field) == [0xD5, 0x41, 0x00])
        let page6 = try #require(chip.answer([0xD4, 0x40, 0x01, 0x30, 0x06], field: &field))
        #expect(Array(page6.dropFirst(3).prefix(4)) == [1, 2, 3, 4])
        #expect(chip.answer([0xD4, 0x52, 0x01], field: &field) == [0xD5, 0x53, 0x00])
        #expect(chip.answer([0xD4, 0x40, 0x01, 0x30, 0x00], field: &field) == [0xD5, 0x41, 0x27])
    }

    @Test("NTAG213 through InCommunicateThru: CRC checked after reset, so ACK and NAK are the CRC error 02")
    func type2TagThroughCommunicateThru() throws {
        var chip = SimulatedPN532()
        var field: (any VirtualCard)? = Self.ntag()
        _ = chip.answer([0xD4, 0x4A, 0x01, 0x00], field: &field)
        // RxCRCEn (CIU_RxMode 6303 bit 7) is set after reset: data comes without its CRC_A.
        #expect(chip.answer([0xD4, 0x06, 0x63, 0x03], field: &field) == [0xD5, 0x07, 0x80])
        let plain = try #require(chip.answer([0xD4, 0x42, 0x30, 0x00], field: &field))
        #expect(plain.count == 3 + 16)
        // A 4-bit ACK fails the CRC check (UM0701-02 §7.1 error 02); the page is written all the same.
        #expect(chip.answer([0xD4, 0x42, 0xA2, 0x07, 9, 9, 9, 9], field: &field) == [0xD5, 0x43, 0x02])
        let page7 = try #require(chip.answer([0xD4, 0x42, 0x30, 0x07], field: &field))
        #expect(Array(page7.dropFirst(3).prefix(4)) == [9, 9, 9, 9])
        // libfreefare's Ultralight C probe (AUTHENTICATE 1A 00): the NTAG's NAK is a CRC error too.
        #expect(chip.answer([0xD4, 0x42, 0x1A, 0x00], field: &field) == [0xD5, 0x43, 0x02])
        // With RxCRCEn cleared (nfcpy's Type 2 path) the answer keeps its CRC_A and 4 bits come as one byte.
        _ = chip.answer([0xD4, 0x4A, 0x01, 0x00], field: &field)
        _ = chip.answer([0xD4, 0x08, 0x63, 0x03, 0x00], field: &field)
        let withCRC = try #require(chip.answer([0xD4, 0x42, 0x30, 0x00], field: &field))
        let data = Array(withCRC.dropFirst(3).prefix(16))
        #expect(withCRC.count == 3 + 18)
        #expect(Array(withCRC.suffix(2)) == CRC16A.bytes(data))
        #expect(chip.answer([0xD4, 0x42, 0xA2, 0x07, 1, 1, 1, 1], field: &field) == [0xD5, 0x43, 0x00, 0x0A])
        // A command the tag does not know: its 4-bit NAK 0 (NTAG213 datasheet).
        #expect(chip.answer([0xD4, 0x42, 0x55], field: &field) == [0xD5, 0x43, 0x00, 0x00])
        // Set again by the host (libnfc writes it when it handles CRCs): the CRC error again.
        _ = chip.answer([0xD4, 0x4A, 0x01, 0x00], field: &field)
        _ = chip.answer([0xD4, 0x08, 0x63, 0x03, 0x80], field: &field)
        #expect(chip.answer([0xD4, 0x42, 0x1A, 0x00], field: &field) == [0xD5, 0x43, 0x02])
    }

    @Test("NTAG213 through InDataExchange: COMPATIBILITY_WRITE A0 in one command, a NAK is status 14")
    func type2TagWritesThroughInDataExchange() throws {
        var chip = SimulatedPN532()
        var field: (any VirtualCard)? = Self.ntag()
        _ = chip.answer([0xD4, 0x4A, 0x01, 0x00], field: &field)
        // A0 page data(16): the PN532 sends both parts and takes both ACKs; the tag keeps 4 bytes.
        let data: [UInt8] = [5, 6, 7, 8] + [UInt8](repeating: 0xEE, count: 12)
        #expect(chip.answer([0xD4, 0x40, 0x01, 0xA0, 0x08] + data, field: &field) == [0xD5, 0x41, 0x00])
        let page8 = try #require(chip.answer([0xD4, 0x40, 0x01, 0x30, 0x08], field: &field))
        #expect(Array(page8.dropFirst(3).prefix(4)) == [5, 6, 7, 8])
        // Page 0 holds the UID: the tag NAKs the first part, the PN532 reports status 14.
        #expect(chip.answer([0xD4, 0x40, 0x01, 0xA0, 0x00] + data, field: &field) == [0xD5, 0x41, 0x14])
        _ = chip.answer([0xD4, 0x4A, 0x01, 0x00], field: &field)
        #expect(chip.answer([0xD4, 0x40, 0x01, 0xA2, 0x01, 1, 2, 3, 4], field: &field) == [0xD5, 0x41, 0x14])
    }

    @Test("DESFire: automatic RATS puts the ATS in the target data; InDataExchange carries APDUs")
    func desfireWithAutomaticRATS() throws {
        var chip = SimulatedPN532()
        var field: (any VirtualCard)? = DESFireCard(seed: 5)
        let uid = try #require(field?.uid)
        #expect(chip.answer([0xD4, 0x12, 0x14], field: &field) == [0xD5, 0x13])
        #expect(
            chip.answer([0xD4, 0x4A, 0x01, 0x00], field: &field)
                == [0xD5, 0x4B, 0x01, 0x01, 0x03, 0x44, 0x20, 0x07] + uid + [0x06, 0x75, 0x77, 0x81, 0x02, 0x80])
        // GetVersion wrapped: the first part and 91 AF.
        let version = try #require(chip.answer([0xD4, 0x40, 0x01, 0x90, 0x60, 0x00, 0x00, 0x00], field: &field))
        #expect(version.prefix(3) == [0xD5, 0x41, 0x00])
        #expect(version.suffix(2) == [0x91, 0xAF])
    }

    @Test("DESFire without automatic RATS: the host's RATS and I-blocks through InCommunicateThru")
    func desfireHostRunsISODEP() throws {
        var chip = SimulatedPN532()
        var field: (any VirtualCard)? = DESFireCard(seed: 5)
        _ = chip.answer([0xD4, 0x12, 0x00], field: &field)
        let listed = try #require(chip.answer([0xD4, 0x4A, 0x01, 0x00], field: &field))
        #expect(listed.count == 5 + 3 + 7)
        // RATS with FSDI 8 (256 bytes), CID 0 → the ATS.
        #expect(
            chip.answer([0xD4, 0x42, 0xE0, 0x80], field: &field) == [
                0xD5, 0x43, 0x00, 0x06, 0x75, 0x77, 0x81, 0x02, 0x80,
            ])
        let block = try #require(chip.answer([0xD4, 0x42, 0x02, 0x90, 0x60, 0x00, 0x00, 0x00], field: &field))
        #expect(block.prefix(4) == [0xD5, 0x43, 0x00, 0x02])
        #expect(block.suffix(2) == [0x91, 0xAF])
        // S(DESELECT) is answered with itself.
        #expect(chip.answer([0xD4, 0x42, 0xC2], field: &field) == [0xD5, 0x43, 0x00, 0xC2])
    }

    @Test("through the virtual reader: the ACR122U answers its PN532 commands before any IccPowerOn, card or not")
    func virtualACR122UAnswersWithoutPower() async throws {
        let reader = VirtualCCIDReader(
            configuration: VirtualReaderConfiguration(
                vendorID: 0x072F, productID: 0x2200, bcdDevice: 0x0207,
                descriptor: VirtualReaderConfiguration.level(.shortAPDU).descriptor))
        var sequence: UInt8 = 0
        func send(_ apdu: [UInt8]) async throws -> [UInt8] {
            try await reader.receiveBulkOut(
                CCIDCommand(
                    slot: 0, sequence: sequence,
                    kind: .xfrBlock(blockWaitingTimeMultiplier: 0, levelParameter: 0, data: apdu)
                )
                .encoded())
            sequence &+= 1
            let response = try CCIDResponse(decoding: try await reader.nextBulkIn(maxLength: 300, timeout: .seconds(1)))
            guard case .dataBlock(_, let data) = response.kind else { return [] }
            return data
        }
        #expect(try await send([0xFF, 0x00, 0x48, 0x00, 0x00]) == Array("ACR122U207".utf8))
        #expect(try await send(Self.direct([0xD4, 0x02])) == [0xD5, 0x03, 0x32, 0x01, 0x06, 0x07, 0x90, 0x00])
        await reader.insert(Self.ntag())
        let listed = try await send(Self.direct([0xD4, 0x4A, 0x01, 0x00]))
        #expect(listed.prefix(8) == [0xD5, 0x4B, 0x01, 0x01, 0x00, 0x44, 0x00, 0x07])
        // The card left: the PN532 forgets its target.
        await reader.removeCard()
        #expect(try await send(Self.direct([0xD4, 0x40, 0x01, 0x30, 0x00])) == [0xD5, 0x41, 0x27, 0x90, 0x00])
    }
}
