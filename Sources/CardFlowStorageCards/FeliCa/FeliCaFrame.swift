import CardFlow

/// The pure half of the FeliCa commands this layer sends: Polling, Read Without Encryption and
/// Write Without Encryption as raw frames, and their answers checked and taken apart. The
/// frames go to the card through the reader's pass-through (``StorageRawFrameTransport``).
///
/// A FeliCa frame is `LEN CODE …` where `LEN` counts itself; the reader adds the preamble, the
/// sync code and the CRC. Facts from JIS X 6319-4 as summarised in Sony's "FeliCa Card User's
/// Manual, Excerpted Edition" (§4.4 commands, §4.5 status flags) and the FeliCa Lite-S user's
/// manual; cross-checked against nfcpy's `tt3.py` (frame layout, block list elements).
///
/// ```swift
/// let frame = FeliCaFrame.polling(systemCode: FeliCaSystemCode.wildcard, requestCode: .systemCode)
/// // 06 00 FF FF 01 00
/// ```
public enum FeliCaFrame {
    /// What Polling asks the card to add to its answer.
    public enum RequestCode: UInt8, Sendable, Hashable, CaseIterable {
        /// IDm and PMm only.
        case none = 0x00
        /// And the system code of the system that answered.
        case systemCode = 0x01
        /// And the communication performance (bit rates).
        case communicationPerformance = 0x02
    }

    /// Polling (`00`): `06 00 SC_hi SC_lo RC TSN`.
    ///
    /// - Parameters:
    ///   - systemCode: the system to wake; `FF` in a byte matches any value of that byte.
    ///   - requestCode: what the answer adds to IDm and PMm.
    ///   - timeSlots: the time slot number (0: one slot).
    public static func polling(systemCode: UInt16, requestCode: RequestCode = .systemCode, timeSlots: UInt8 = 0)
        -> [UInt8]
    {
        [0x06, 0x00] + bigEndian(systemCode) + [requestCode.rawValue, timeSlots]
    }

    /// Read Without Encryption (`06`): `LEN 06 IDm n SC… m BLK…` with every block in the first
    /// service of the list.
    ///
    /// - Throws: ``StorageCardError/invalidArgument(_:)`` for an IDm that is not 8 bytes, no
    ///   block, more than 15 blocks, or a block number above `FFFF`.
    public static func readWithoutEncryption(idm: [UInt8], service: FeliCaServiceCode, blocks: [Int])
        throws(StorageCardError) -> [UInt8]
    {
        try checkIDm(idm)
        guard (1...15).contains(blocks.count) else {
            throw .invalidArgument("a Read Without Encryption names 1…15 blocks, not \(blocks.count)")
        }
        let list = try blockList(blocks)
        return framed([0x06] + idm + [0x01] + service.wireBytes + [UInt8(blocks.count)] + list)
    }

    /// Write Without Encryption (`08`): `LEN 08 IDm n SC… m BLK… DATA` (16 bytes per block).
    ///
    /// - Throws: ``StorageCardError/invalidArgument(_:)`` for an IDm that is not 8 bytes, no block
    ///   or more than 13, data that is not 16 bytes per block, or a frame longer than 255 bytes.
    public static func writeWithoutEncryption(
        idm: [UInt8], service: FeliCaServiceCode, blocks: [Int], data: [UInt8]
    ) throws(StorageCardError) -> [UInt8] {
        try checkIDm(idm)
        // 13 blocks of 16 bytes are the most one frame (LEN ≤ 255) carries.
        guard (1...13).contains(blocks.count) else {
            throw .invalidArgument("a Write Without Encryption names 1…13 blocks, not \(blocks.count)")
        }
        guard data.count == blocks.count * 16 else {
            throw .invalidArgument("a write needs 16 bytes per block: \(data.count) bytes for \(blocks.count) blocks")
        }
        let list = try blockList(blocks)
        let body = [0x08] + idm + [0x01] + service.wireBytes + [UInt8(blocks.count)] + list + data
        guard body.count < 255 else {
            throw .invalidArgument("a write of \(blocks.count) blocks does not fit one frame")
        }
        return framed(body)
    }

    /// The block list: each element in its 2-byte form (`80 | order`, block) up to block 255,
    /// the 3-byte form (`00 | order`, block LSB, MSB) above; always service 0 of the list, access
    /// mode 000.
    static func blockList(_ blocks: [Int]) throws(StorageCardError) -> [UInt8] {
        var list: [UInt8] = []
        for block in blocks {
            guard (0...0xFFFF).contains(block) else {
                throw .invalidArgument("FeliCa block \(block) is outside 0…FFFF")
            }
            list += block <= 0xFF ? [0x80, UInt8(block)] : [0x00] + bigEndian(UInt16(block)).reversed()
        }
        return list
    }

    private static func checkIDm(_ idm: [UInt8]) throws(StorageCardError) {
        guard idm.count == 8 else { throw .invalidArgument("an IDm has 8 bytes, not \(idm.count)") }
    }

    /// A frame under 255 bytes gets its LEN; every caller bounds its body first.
    private static func framed(_ body: [UInt8]) -> [UInt8] { [UInt8(truncatingIfNeeded: body.count + 1)] + body }

    /// `value` most significant byte first.
    public static func bigEndian(_ value: UInt16) -> [UInt8] {
        [UInt8(truncatingIfNeeded: value >> 8), UInt8(truncatingIfNeeded: value)]
    }

    // MARK: - Answers

    /// The card's answer to Polling.
    ///
    /// - Throws: ``StorageCardError/malformedFeliCaAnswer(command:reason:)`` for a length byte
    ///   that does not match, another response code, or fewer than 18 bytes.
    public static func pollingAnswer(_ answer: [UInt8]) throws(StorageCardError) -> FeliCaPollingAnswer {
        let body = try checkedBody(answer, command: 0x00, minimum: 18)
        return FeliCaPollingAnswer(
            idm: Array(body[2..<10]), pmm: Array(body[10..<18]), requestData: Array(body[18...]))
    }

    /// The block data of a Read Without Encryption answer (`LEN 07 IDm SF1 SF2 n DATA`).
    ///
    /// - Throws: ``StorageCardError/feliCaStatus(command:flag1:flag2:likelyCause:)`` when the
    ///   status flags report an error; ``StorageCardError/malformedFeliCaAnswer(command:reason:)``
    ///   for a frame of the wrong shape, another IDm, or a block count other than asked.
    public static func readAnswer(_ answer: [UInt8], idm: [UInt8], blockCount: Int) throws(StorageCardError)
        -> [UInt8]
    {
        let body = try checkedBody(answer, command: 0x06, minimum: 12)
        try checkStatus(body, idm: idm, command: 0x06)
        guard body.count >= 13, Int(body[12]) == blockCount, body.count == 13 + blockCount * 16 else {
            throw .malformedFeliCaAnswer(
                command: 0x06, reason: "\(body.count) bytes for \(blockCount) blocks (expected \(13 + blockCount * 16))"
            )
        }
        return Array(body[13...])
    }

    /// Checks a Write Without Encryption answer (`0C 09 IDm SF1 SF2`).
    ///
    /// - Throws: as ``readAnswer(_:idm:blockCount:)``.
    public static func writeAnswer(_ answer: [UInt8], idm: [UInt8]) throws(StorageCardError) {
        let body = try checkedBody(answer, command: 0x08, minimum: 12)
        try checkStatus(body, idm: idm, command: 0x08)
    }

    private static func checkedBody(_ answer: [UInt8], command: UInt8, minimum: Int) throws(StorageCardError)
        -> [UInt8]
    {
        guard let length = answer.first, Int(length) == answer.count else {
            throw .malformedFeliCaAnswer(
                command: command,
                reason: "length byte \(answer.first.map { [$0].hexString } ?? "missing") for \(answer.count) bytes")
        }
        guard answer.count >= minimum else {
            throw .malformedFeliCaAnswer(
                command: command, reason: "\(answer.count) bytes, at least \(minimum) expected")
        }
        guard answer[1] == command + 1 else {
            throw .malformedFeliCaAnswer(
                command: command, reason: "response code \([answer[1]].hexString), \([command + 1].hexString) expected")
        }
        return answer
    }

    private static func checkStatus(_ body: [UInt8], idm: [UInt8], command: UInt8) throws(StorageCardError) {
        guard Array(body[2..<10]) == idm else {
            throw .malformedFeliCaAnswer(
                command: command, reason: "answer from IDm \(Array(body[2..<10]).hexString), not \(idm.hexString)")
        }
        let (flag1, flag2) = (body[10], body[11])
        guard flag1 == 0x00 else {
            throw .feliCaStatus(
                command: command, flag1: flag1, flag2: flag2, likelyCause: FeliCaFrame.likelyCause(flag2: flag2))
        }
    }

    /// What status flag 2 means (FeliCa Card User's Manual, Excerpted Edition §4.5; the codes
    /// a Lite-S gives are a subset).
    public static func likelyCause(flag2: UInt8) -> String {
        switch flag2 {
        case 0x70: "memory error (the card could not write)"
        case 0x71: "the block's rewrite count is exhausted"
        case 0xA1: "illegal number of services (a service this card does not have?)"
        case 0xA2: "illegal number of blocks (more than the card takes in one command?)"
        case 0xA3: "the block list names a service that is not in the service list"
        case 0xA4: "illegal service type"
        case 0xA5: "access denied"
        case 0xA6: "illegal service code list (a read-only service for a write?)"
        case 0xA7: "illegal access mode in the block list"
        case 0xA8: "illegal block number: the block does not exist or is not writable this way"
        case 0xA9: "data write failure"
        case 0xB1: "the block needs authentication (MAC) to be read"
        case 0xB2: "MAC verification failed on a write with MAC"
        default: "status \([flag2].hexString)"
        }
    }
}

/// The card's answer to Polling.
public struct FeliCaPollingAnswer: Sendable, Hashable {
    /// The manufacture ID (8 bytes) that addresses the card in every later command.
    public let idm: [UInt8]
    /// The manufacture parameter (8 bytes): byte 1 is the IC type (``FeliCaProduct``).
    public let pmm: [UInt8]
    /// What the request code asked for: the system code (2 bytes, big endian) or the
    /// communication performance; empty for request code 00.
    public let requestData: [UInt8]

    /// The system code of the system that answered, when asked for with request code 01.
    public var systemCode: UInt16? {
        requestData.count == 2 ? UInt16(requestData[0]) << 8 | UInt16(requestData[1]) : nil
    }
}
