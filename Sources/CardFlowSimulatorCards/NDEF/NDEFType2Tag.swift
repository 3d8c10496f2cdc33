/// An NFC Forum Type 2 Tag (NTAG/Ultralight-like, 4-byte pages) holding NDEF, written from the
/// NFC Forum Type 2 Tag specification and reached, as through PC/SC readers, with the part 3
/// pseudo-APDUs `FF B0 00 page 10` (read 4 pages) and `FF D6 00 page 04 data` (write a page).
///
/// Memory: pages 0-2 UID, BCC, internal and static lock bytes; page 3 the capability container
/// (E1 10 size access, one-time programmable); the data area from page 4 with the NDEF TLV.
public struct NDEFType2Tag: PersistentVirtualCard, Hashable {
    public static let persistentKind = "type2"
    public var kind: String { Self.persistentKind }
    public let uid: [UInt8]
    public var technology: ContactlessTechnology { .mifareUltralight }
    public var readerPassThroughInstructions: Set<UInt8> { [0xB0, 0xD6] }

    /// The whole memory, 4 bytes per page.
    public private(set) var memory: [UInt8]

    /// A tag with `dataAreaSize` bytes of data area (a multiple of 8), holding `message` in an
    /// NDEF TLV; `readOnly` sets the CC write access to 0F and the static lock bits.
    public init(seed: UInt64 = 0, dataAreaSize: Int = 144, message: [UInt8] = [], readOnly: Bool = false) {
        uid = ISO7816Card.uid(fromSeed: seed)
        let size = max(48, min(dataAreaSize, 2040)) / 8 * 8
        var memory = [UInt8](repeating: 0, count: 16 + size)
        // UID0-2, BCC0 = 0x88 ^ UID0 ^ UID1 ^ UID2; UID3-6, BCC1 = UID3 ^ … ^ UID6.
        memory[0] = uid[0]; memory[1] = uid[1]; memory[2] = uid[2]
        memory[3] = 0x88 ^ uid[0] ^ uid[1] ^ uid[2]
        for index in 0..<4 { memory[4 + index] = uid[3 + index] }
        memory[8] = uid[3] ^ uid[4] ^ uid[5] ^ uid[6]
        memory[10] = readOnly ? 0xFF : 0x00
        memory[11] = readOnly ? 0xFF : 0x00
        memory[12] = 0xE1; memory[13] = 0x10; memory[14] = UInt8(size / 8); memory[15] = readOnly ? 0x0F : 0x00
        var tlv: [UInt8] = [0x03]
        let stored = message.prefix(size - 4)
        if stored.count < 0xFF {
            tlv.append(UInt8(truncatingIfNeeded: stored.count))
        } else {
            tlv += [0xFF, UInt8(truncatingIfNeeded: stored.count >> 8), UInt8(truncatingIfNeeded: stored.count)]
        }
        tlv += stored + [0xFE]
        for (index, byte) in tlv.prefix(size).enumerated() { memory[16 + index] = byte }
        self.memory = memory
    }

    public var pageCount: Int { memory.count / 4 }

    public mutating func powerOn() {}

    public mutating func process(_ command: [UInt8]) -> [UInt8] {
        guard command.count >= 5, command[0] == 0xFF else { return [0x6E, 0x00] }
        let page = Int(command[3])
        switch command[1] {
        case 0xB0:
            guard command.count == 5, command[2] == 0x00 else { return [0x67, 0x00] }
            let length = command[4] == 0 ? 16 : Int(command[4])
            guard length <= 16, page < pageCount else { return [0x63, 0x00] }
            // READ returns 4 pages, rolling over to page 0 past the end, as the tags do.
            let bytes = (0..<16).map { memory[(page * 4 + $0) % memory.count] }
            return Array(bytes.prefix(length)) + [0x90, 0x00]
        case 0xD6:
            guard command[2] == 0x00, command[4] == 0x04, command.count == 9 else { return [0x67, 0x00] }
            let data = Array(command[5..<9])
            return write(page: page, data)
        default:
            return [0x6D, 0x00]
        }
    }

    private mutating func write(page: Int, _ data: [UInt8]) -> [UInt8] {
        guard page < pageCount, page >= 2 else { return [0x63, 0x00] }
        switch page {
        case 2:
            // Only the lock bytes are writable, and their bits can only be set.
            memory[10] |= data[2]
            memory[11] |= data[3]
        case 3:
            // The capability container is one-time programmable: bits can only be set.
            for index in 0..<4 { memory[12 + index] |= data[index] }
        default:
            guard !isLocked(page: page) else { return [0x63, 0x00] }
            memory.replaceSubrange(page * 4..<page * 4 + 4, with: data)
        }
        return [0x90, 0x00]
    }

    /// Static lock bits (pages 3-15) and the CC's write access byte.
    private func isLocked(page: Int) -> Bool {
        if memory[15] == 0x0F { return true }
        guard page <= 15 else { return false }
        let bits = UInt16(memory[10]) | UInt16(memory[11]) << 8
        return bits & (1 << UInt16(page)) != 0
    }

    private enum CodingKeys: String, CodingKey { case uid, memory }

    /// Decodes a saved tag, refusing a memory no tag has (the header pages and a data area of
    /// 48...2040 bytes in 8-byte units), so an edited state file cannot make the model trap.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let uid = try container.decode([UInt8].self, forKey: .uid)
        guard uid.count == 7 else {
            throw DecodingError.dataCorruptedError(
                forKey: .uid, in: container, debugDescription: "UID must have 7 bytes")
        }
        let memory = try container.decode([UInt8].self, forKey: .memory)
        let dataArea = memory.count - 16
        guard (48...2040).contains(dataArea), dataArea % 8 == 0 else {
            throw DecodingError.dataCorruptedError(
                forKey: .memory, in: container,
                debugDescription: "memory of \(memory.count) bytes: 16 + 48...2040 in steps of 8 expected")
        }
        self.uid = uid
        self.memory = memory
    }
}
