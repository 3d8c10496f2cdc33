import CardFlow
import Testing

@testable import CardFlowUFR

/// The uFR DESFire commands (reader keys and provided keys) against the examples of Digital
/// Logic's "uFR serial protocol 1.26" (uFR_COM_Protocol.pdf, nfc-rfid-reader-sdk/ufr-doc,
/// pages 61–82), byte for byte. Where the document contradicts itself the test says which side
/// the codec follows and why.
@Suite("uFR DESFire codec")
struct UFRDESFireCodecTests {
    static func hex(_ text: String) -> [UInt8] { UFRCodecTests.hex(text) }
    static let zeros16 = [UInt8](repeating: 0, count: 16)

    static func reply(_ bytes: String) throws -> UFRReply {
        let frames = try UFRCodecTests.decodeAll(hex(bytes))
        guard frames.count == 1, case .reply(let reply) = frames[0] else {
            Issue.record("not one reply: \(frames)")
            return UFRReply(outcome: .error(.communicationError))
        }
        return reply
    }

    @Test("DESFIRE_WRITE_AES_KEY (8E): key 00 11 … FF into reader slot 3 (p. 62)")
    func writeReaderKey() throws {
        let key = Self.hex("00 11 22 33 44 55 66 77 88 99 AA BB CC DD EE FF")
        let command = try UFRCommand.desfireWriteReaderKey(slot: 3, key: key)
        #expect(command.packet.bytes == Self.hex("55 8E AA 12 00 00 6A"))
        #expect(command.extensionBytes == Self.hex("03 00 11 22 33 44 55 66 77 88 99 AA BB CC DD EE FF 0A"))
        let reply = try Self.reply("DE 8E ED 03 00 00 C5 00 00 07")
        #expect(reply.extensionData == [0x00, 0x00])
        #expect(throws: UFRDESFireError.invalidArgument("reader key slot 16 is not in 0–15")) {
            try UFRCommand.desfireWriteReaderKey(slot: 16, key: key)
        }
        #expect(throws: UFRDESFireError.self) { try UFRCommand.desfireWriteReaderKey(slot: 0, key: [1, 2, 3]) }
    }

    @Test("DESFIRE_FREE_MEM (8D): no EXT; the reply carries status, time and 1000 bytes (p. 64)")
    func freeMemory() throws {
        #expect(try UFRCommand.desfireFreeMemory().packet.bytes == Self.hex("55 8D AA 00 00 00 79"))
        let reply = try UFRDESFireReply(
            try Self.reply("DE 8D ED 09 00 00 BE B9 0B 0A 00 E8 03 00 00 5A"), to: .desfireFreeMemory)
        #expect(reply.status == .ok)
        #expect(reply.executionMilliseconds == 0x000A)
        #expect(reply.data == Self.hex("E8 03 00 00"))
    }

    @Test("DESFIRE_FORMAT_CARD (8C) with reader key 1 (p. 65)")
    func format() throws {
        let command = try UFRCommand.desfireFormat(piccKey: .readerSlot(1))
        #expect(command.packet.bytes == Self.hex("55 8C AA 13 00 00 67"))
        #expect(command.extensionBytes == [0x01, 0x01] + Self.zeros16 + [0x07])
        let reply = try UFRDESFireReply(try Self.reply("DE 8C ED 05 00 00 C1 B9 0B AC 0D 1A"), to: .desfireFormatCard)
        #expect(reply.executionMilliseconds == 0x0DAC)
    }

    @Test("DESFIRE_CREATE_APPLICATION (84): reader key 1, AID F00002, settings 09, 3 keys (p. 72–73)")
    func createApplication() throws {
        let command = try UFRCommand.desfireCreateApplication(
            0xF0_0002, settings: 0x09, keyCount: 3, piccKey: .readerSlot(1))
        #expect(command.packet.bytes == Self.hex("55 84 AA 19 00 00 69"))
        #expect(command.extensionBytes == [0x01, 0x01] + Self.zeros16 + Self.hex("02 00 F0 01 09 03 00"))
        _ = try UFRDESFireReply(try Self.reply("DE 84 ED 05 00 00 B9 B9 0B 1A 00 AF"), to: .desfireCreateApplication)
    }

    @Test(
        "DESFIRE_READ_FROM_STD_FILE (83): the example's EXT byte for byte; its length byte follows the rule (p. 79–80)")
    func read() throws {
        let command = try UFRCommand.desfireRead(
            application: 0xF0_0002, key: .readerSlot(3), keyNumber: 2, file: 1, offset: 10, length: 50,
            communication: UFRDESFireCommunication(rawValue: 0x11))
        #expect(
            command.extensionBytes == [0x01, 0x03] + Self.zeros16 + Self.hex("02 00 F0 02 01 01 0A 00 32 00 11 E2"))
        // The document prints `55 83 AA 1D 00 00 68` (length 29) for this 30-byte CMD_EXT; every
        // other example (8E, 8C, 84) and §2.1 count data + checksum, so the codec sends 0x1E.
        #expect(command.packet.bytes == Self.hex("55 83 AA 1E 00 00 69"))
    }

    @Test("the read reply: data streamed as 00 n <n bytes>, then the RSP (p. 80)")
    func streamedRead() throws {
        let data = Array(repeating: Self.hex("01 02 03 04 05 06 07 08 09 0A"), count: 5).flatMap { $0 }
        var decoder = UFRReplyDecoder()
        decoder.acceptsStreamedData = true
        // The example's RSP names code 8A (a typo for 83, ufr.md §9 item 6); the decoder takes it as it is.
        decoder.append([0x00, 0x32] + data + Self.hex("DE 8A ED 05 00 00 C3 B9 0B 1A 00 AF"))
        #expect(try decoder.next() == .streamedData(data))
        guard case .reply(let reply) = try decoder.next() else {
            Issue.record("no RSP after the data")
            return
        }
        #expect(reply.outcome == .response(UFRCommandCode(rawValue: 0x8A)))
        #expect(try UFRDESFireReply(reply, to: .desfireReadStandardFile).status == .ok)
        #expect(try decoder.next() == nil)

        // Off, the same leading bytes are skipped as no frame's (a stale stream never reads as data).
        var plain = UFRReplyDecoder()
        plain.append([0x00, 0x02, 0xAB, 0xCD] + Self.hex("DE 83 ED 05 00 00 BC B9 0B 1A 00 AF"))
        guard case .reply = try plain.next() else {
            Issue.record("no RSP")
            return
        }
        #expect(plain.skippedByteCount == 4)
    }

    @Test("DESFIRE_WRITE_TO_STD_FILE (82): the example's EXT; then DD and the RSP (p. 82)")
    func write() throws {
        let data = Array(repeating: Self.hex("01 02 03 04 05 06 07 08 09 0A"), count: 5).flatMap { $0 }
        let command = try UFRCommand.desfireWrite(
            data, application: 0xF0_0002, key: .readerSlot(3), keyNumber: 1, file: 1, offset: 10,
            communication: UFRDESFireCommunication(rawValue: 0x11))
        // The example prints "CRC" for the checksum and 0x51 for the length of its 80-byte CMD_EXT.
        let expected = [0x01, 0x03] + Self.zeros16 + Self.hex("02 00 F0 01 01 01 0A 00 32 00 11") + data
        #expect(command.extensionData == expected)
        #expect(command.extensionBytes.count == 80)
        #expect(command.packet.bytes[3] == 80)
        // DD (no more data) is no frame: the decoder passes over it to the RSP.
        var decoder = UFRReplyDecoder()
        decoder.append(Self.hex("DD DE 82 ED 05 00 00 BB B9 0B 1A 00 AF"))
        guard case .reply(let reply) = try decoder.next() else {
            Issue.record("no RSP")
            return
        }
        #expect(try UFRDESFireReply(reply, to: .desfireWriteStandardFile).status == .ok)
        #expect(throws: UFRDESFireError.self) {
            try UFRCommand.desfireWrite(
                [UInt8](repeating: 0, count: 161), application: 1, key: nil, keyNumber: 0, file: 0, offset: 0,
                communication: .plain)
        }
    }

    @Test("DESFIRE_CHANGE_AES_KEY (86): slots 1 (auth), 2 (new), 3 (old), key 2 of F00001 (p. 71)")
    func changeKey() throws {
        let command = try UFRCommand.desfireChangeKey(
            application: 0xF0_0001, authenticationKey: .readerSlot(1), authenticationKeyNumber: 0,
            newKey: .readerSlot(2), keyNumber: 2, oldKey: .readerSlot(3))
        let example =
            Self.hex("33 21") + Self.zeros16 + Self.hex("01 00 F0 00") + Self.zeros16 + [0x02] + Self.zeros16
        // The text sets bit 2 of byte 0 for an old key from a slot (0x37 here); the example shows
        // 0x33. The codec follows the text: the old key's slot number alone, without its flag,
        // would leave the reader to guess. Everything after byte 0 is the example's.
        #expect(command.extensionData[0] == 0x37)
        #expect(Array(command.extensionData.dropFirst()) == Array(example.dropFirst()))
        #expect(command.extensionData.count == 55)
        // Printed as `55 86 AA 37 …` for these 55 data bytes and checksum; the codec counts both (0x38).
        #expect(command.packet.bytes[3] == 0x38)
        _ = try UFRDESFireReply(try Self.reply("DE 86 ED 05 00 00 B7 B9 0B 1A 00 AF"), to: .desfireChangeKey)
    }

    @Test("DES → AES PICC master key: DES key provided (8 bytes + 8 zeros), AES key from a slot, Par0 0x02")
    func desToAES() throws {
        let command = try UFRCommand.desfireChangeKey(
            application: 0, authenticationKey: .provided(type: .des, [UInt8](repeating: 0, count: 8)),
            authenticationKeyNumber: 0, newKey: .readerSlot(5), keyNumber: 0, oldKey: nil)
        #expect(command.parameter0 == 0x02)
        #expect(Array(command.extensionData.prefix(2)) == [0x02, 0x50])
        #expect(Array(command.extensionData[18..<22]) == [0, 0, 0, 0])
    }

    @Test("replies: failure statuses, the time-only reply, ERR packets, short EXT")
    func replies() throws {
        // 0x0CA0: the card answered "application not found".
        let missing = UFRReply(outcome: .response(.desfireReadStandardFile), extensionData: Self.hex("A0 0C 05 00"))
        #expect(throws: UFRDESFireError.failed(.desfireReadStandardFile, UFRDESFireStatus(rawValue: 0x0CA0))) {
            try UFRDESFireReply(missing, to: .desfireReadStandardFile)
        }
        #expect(UFRDESFireStatus(rawValue: 0x0CA0).cardStatus == 0xA0)
        #expect(UFRDESFireError.failed(.desfireFormatCard, .keyAuthenticationError).category == .card)
        #expect(UFRDESFireError.failed(.desfireFormatCard, .readerError).category == .reader)
        let timeOnly = UFRReply(outcome: .response(.desfireFormatCard), extensionData: [0x10, 0x00])
        #expect(throws: UFRDESFireError.noCardOrReaderError(.desfireFormatCard)) {
            try UFRDESFireReply(timeOnly, to: .desfireFormatCard)
        }
        #expect(UFRDESFireError.noCardOrReaderError(.desfireFormatCard).cardLoss == .noCard)
        #expect(throws: UFRError.readerError(.desfireFormatCard, .noCard)) {
            try UFRDESFireReply(UFRReply(outcome: .error(.noCard)), to: .desfireFormatCard)
        }
        #expect(throws: UFRDESFireError.self) {
            try UFRDESFireReply(
                UFRReply(outcome: .response(.desfireFormatCard), extensionData: [0xB9]), to: .desfireFormatCard)
        }
    }

    @Test("arguments a frame cannot carry are usage errors, never a frame")
    func arguments() {
        #expect(throws: UFRDESFireError.self) { try UFRDESFireKey.readerSlot(16) }
        #expect(throws: UFRDESFireError.self) { try UFRDESFireKey.provided(type: .aes, [1, 2]) }
        #expect(throws: UFRDESFireError.self) {
            try UFRCommand.desfireCreateApplication(0x100_0000, settings: 0, keyCount: 1, piccKey: nil)
        }
        #expect(throws: UFRDESFireError.self) {
            try UFRCommand.desfireCreateApplication(0xF0_0001, settings: 0, keyCount: 15, piccKey: nil)
        }
        #expect(UFRDESFireError.invalidArgument("x").category == .usage)
    }
}
