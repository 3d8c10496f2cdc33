import CardFlowCCIDProtocol
import Testing

@Suite struct T1BlockTests {
    // MARK: Vectors from the reference (pcsc-lite CCID driver)

    @Test func ifsRequestAndResponseForIFSD254() throws {
        let request = T1Block(kind: .supervisory(.ifs, isResponse: false), information: [0xFE])
        #expect(try request.encoded(checksum: .lrc) == [0x00, 0xC1, 0x01, 0xFE, 0x3E])
        let response = try T1Block(decoding: [0x00, 0xE1, 0x01, 0xFE, 0x1E], checksum: .lrc)
        #expect(response == T1Block(kind: .supervisory(.ifs, isResponse: true), information: [0xFE]))
    }

    @Test func waitingTimeExtensionRequestAndResponse() throws {
        let request = try T1Block(decoding: [0x00, 0xC3, 0x01, 0x09, 0xCB], checksum: .lrc)
        #expect(request.kind == .supervisory(.waitingTimeExtension, isResponse: false))
        #expect(request.information == [0x09])
        let response = T1Block(kind: .supervisory(.waitingTimeExtension, isResponse: true), information: [0x09])
        #expect(try response.encoded(checksum: .lrc) == [0x00, 0xE3, 0x01, 0x09, 0xEB])
    }

    @Test func resynchRequestAndReceiveReadyBlocks() throws {
        #expect(
            try T1Block(kind: .supervisory(.resynch, isResponse: false)).encoded(checksum: .lrc) == [
                0x00, 0xC0, 0x00, 0xC0,
            ])
        #expect(
            try T1Block(kind: .receiveReady(sequence: 1, error: .none)).encoded(checksum: .lrc) == [
                0x00, 0x90, 0x00, 0x90,
            ])
        #expect(
            try T1Block(kind: .receiveReady(sequence: 0, error: .edcOrParity)).encoded(checksum: .lrc) == [
                0x00, 0x81, 0x00, 0x81,
            ])
        #expect(
            try T1Block(kind: .receiveReady(sequence: 1, error: .other)).encoded(checksum: .lrc) == [
                0x00, 0x92, 0x00, 0x92,
            ])
    }

    @Test func informationBlockPCBs() throws {
        let chained = T1Block(kind: .information(sendSequence: 1, more: true), information: [0x01, 0x02])
        #expect(try chained.encoded(checksum: .lrc) == [0x00, 0x60, 0x02, 0x01, 0x02, 0x61])
        #expect(T1BlockKind.information(sendSequence: 0, more: false).protocolControlByte == 0x00)
        #expect(T1BlockKind.information(sendSequence: 1, more: false).protocolControlByte == 0x40)
        #expect(T1BlockKind.information(sendSequence: 0, more: true).protocolControlByte == 0x20)
    }

    // MARK: Checksums

    @Test func lrcIsTheXorOfAllBytes() {
        #expect(T1Checksum.lrc.compute([0x00, 0xC1, 0x01, 0xFE]) == [0x3E])
        #expect(T1Checksum.lrc.compute([]) == [0x00])
        #expect(T1Checksum.lrc.length == 1)
    }

    @Test func crcMatchesTheOpenctVariant() {
        // CRC-16/MCRF4XX check value: poly 0x8408 reflected, init 0xFFFF, no final XOR.
        #expect(T1Checksum.crc.compute(Array("123456789".utf8)) == [0x6F, 0x91])
        #expect(T1Checksum.crc.compute([]) == [0xFF, 0xFF])
        // Byte 0x01 through openct's table: (0xFFFF >> 8) ^ crctab[0xFE] = 0x00FF ^ 0x1EF1.
        #expect(T1Checksum.crc.compute([0x01]) == [0x1E, 0x0E])
        #expect(T1Checksum.crc.length == 2)
    }

    @Test func crcBlocksRoundTrip() throws {
        let block = T1Block(kind: .information(sendSequence: 0, more: false), information: [0x00, 0xA4, 0x04, 0x00])
        let bytes = try block.encoded(checksum: .crc)
        #expect(bytes.count == 3 + 4 + 2)
        #expect(Array(bytes.suffix(2)) == T1Checksum.crc.compute(bytes.dropLast(2)))
        #expect(try T1Block(decoding: bytes, checksum: .crc) == block)
        #expect(throws: T1Error.self) { try T1Block(decoding: bytes, checksum: .lrc) }
    }

    // MARK: Decoding errors

    @Test func decodingRejectsShortBlocks() {
        #expect(throws: T1Error.blockTooShort(length: 3, minimum: 4)) {
            try T1Block(decoding: [0x00, 0x00, 0x00], checksum: .lrc)
        }
        #expect(throws: T1Error.blockTooShort(length: 4, minimum: 5)) {
            try T1Block(decoding: [0x00, 0x00, 0x00, 0x00], checksum: .crc)
        }
        #expect(throws: T1Error.blockTooShort(length: 0, minimum: 4)) {
            try T1Block(decoding: [], checksum: .lrc)
        }
    }

    @Test func decodingRejectsReservedLength() {
        #expect(throws: T1Error.reservedLength) {
            try T1Block(decoding: withLRC([0x00, 0x00, 0xFF]), checksum: .lrc)
        }
    }

    @Test func decodingRejectsLengthMismatch() {
        #expect(throws: T1Error.lengthMismatch(declared: 2, actual: 1)) {
            try T1Block(decoding: withLRC([0x00, 0x00, 0x02, 0x90]), checksum: .lrc)
        }
        #expect(throws: T1Error.lengthMismatch(declared: 0, actual: 1)) {
            try T1Block(decoding: withLRC([0x00, 0x80, 0x00, 0x11]), checksum: .lrc)
        }
    }

    @Test func decodingRejectsBadChecksum() {
        #expect(throws: T1Error.checksumMismatch(expected: [0x92], received: [0x93])) {
            try T1Block(decoding: [0x00, 0x00, 0x02, 0x90, 0x00, 0x93], checksum: .lrc)
        }
    }

    @Test func decodingRejectsUndefinedPCBs() {
        for pcb: UInt8 in [0x01, 0x1F, 0x83, 0x8F, 0xA0, 0xB0, 0xC5, 0xDF, 0xE5, 0xFF] {
            #expect(throws: T1Error.unknownPCB(pcb)) {
                try T1Block(decoding: withLRC([0x00, pcb, 0x00]), checksum: .lrc)
            }
        }
    }

    @Test func exactlyTheTwentyDefinedPCBsDecodeAndRoundTrip() throws {
        var accepted: [UInt8] = []
        for value in 0...0xFF {
            let pcb = UInt8(value)
            let bytes = withLRC([0x00, pcb, 0x01, 0x42])
            guard let block = try? T1Block(decoding: bytes, checksum: .lrc) else { continue }
            accepted.append(pcb)
            #expect(block.kind.protocolControlByte == pcb)
            #expect(try block.encoded(checksum: .lrc) == bytes)
        }
        #expect(
            accepted == [
                0x00, 0x20, 0x40, 0x60,
                0x80, 0x81, 0x82, 0x90, 0x91, 0x92,
                0xC0, 0xC1, 0xC2, 0xC3, 0xC4, 0xE0, 0xE1, 0xE2, 0xE3, 0xE4,
            ])
    }

    // MARK: Encoding errors

    @Test func encodingLimitsInformationTo254Bytes() throws {
        let largest = T1Block(
            kind: .information(sendSequence: 0, more: false), information: Array(repeating: 0xAB, count: 254))
        let bytes = try largest.encoded(checksum: .lrc)
        #expect(bytes.count == 258)
        #expect(bytes[2] == 0xFE)
        let tooLarge = T1Block(
            kind: .information(sendSequence: 0, more: false), information: Array(repeating: 0xAB, count: 255))
        #expect(throws: T1Error.informationTooLong(length: 255)) { try tooLarge.encoded(checksum: .lrc) }
    }

    @Test func encodingRejectsSequenceNumbersAboveOne() {
        #expect(throws: T1Error.invalidSequenceNumber(2)) {
            try T1Block(kind: .information(sendSequence: 2, more: false)).encoded(checksum: .lrc)
        }
        #expect(throws: T1Error.invalidSequenceNumber(3)) {
            try T1Block(kind: .receiveReady(sequence: 3, error: .none)).encoded(checksum: .lrc)
        }
    }

    @Test func nodeAddressIsKept() throws {
        let bytes = withLRC([0x21, 0x00, 0x02, 0x90, 0x00])
        let block = try T1Block(decoding: bytes, checksum: .lrc)
        #expect(block.nodeAddress == 0x21)
        #expect(try block.encoded(checksum: .lrc) == bytes)
    }
}
