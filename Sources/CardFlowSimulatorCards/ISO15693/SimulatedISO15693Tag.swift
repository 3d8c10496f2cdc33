/// An ISO/IEC 15693 vicinity tag (ICODE SLI-like), written from ISO 15693-3 and the PC/SC
/// part 3 reader interface: blocks are read and written with `FF B0 00 block Le` /
/// `FF D6 00 block Lc data`, and raw ISO 15693 requests travel in a transparent exchange
/// (`FF C2 00 01 … 95 L request …`), answered with the `C0 03 … 97 L response` objects.
///
/// Options model real tags: block size and count, locked blocks, and write-multiple disabled
/// (many tags refuse more than one block per write, which the seed flow works around).
public struct SimulatedISO15693Tag: PersistentVirtualCard, Hashable {
    public static let persistentKind = "iso15693"
    public var kind: String { Self.persistentKind }
    /// 8-byte UID, most significant byte first (E0 = ISO 15693, 04 = NXP).
    public let uid: [UInt8]
    public var technology: ContactlessTechnology { .icodeSLI }
    public var readerPassThroughInstructions: Set<UInt8> { [0xB0, 0xD6, 0xC2] }

    public let blockSize: Int
    public private(set) var blocks: [[UInt8]]
    public private(set) var lockedBlocks: Set<Int>
    public let multipleBlockWrite: Bool

    /// - Parameters:
    ///   - seed: where the UID comes from.
    ///   - blockSize: bytes per block.
    ///   - blockCount: number of blocks.
    ///   - multipleBlockWrite: whether the tag accepts multi-block writes.
    ///   - lockedBlocks: blocks locked from the start.
    ///   - ndefFormatted: start with an NFC Forum Type 5 capability container (E1 40
    ///     size 00) and an empty NDEF TLV instead of the patterned test data.
    public init(
        seed: UInt64 = 0, blockSize: Int = 4, blockCount: Int = 28, multipleBlockWrite: Bool = false,
        lockedBlocks: Set<Int> = [], ndefFormatted: Bool = false
    ) {
        let tail = ISO7816Card.uid(fromSeed: seed).suffix(6)
        uid = [0xE0, 0x04] + tail
        let size = min(max(blockSize, 1), 32)
        self.blockSize = size
        let count = min(max(blockCount, 1), 256)
        var blocks = (0..<count).map { index in (0..<size).map { UInt8(truncatingIfNeeded: index * 16 + $0) } }
        if ndefFormatted {
            var memory = [UInt8](repeating: 0, count: count * size)
            let area = min(count * size, 255 * 8)
            memory.replaceSubrange(
                0..<min(7, memory.count),
                with: [0xE1, 0x40, UInt8(truncatingIfNeeded: area / 8), 0x00, 0x03, 0x00, 0xFE].prefix(memory.count))
            blocks = (0..<count).map { Array(memory[$0 * size..<($0 + 1) * size]) }
        }
        self.blocks = blocks
        self.lockedBlocks = lockedBlocks
        self.multipleBlockWrite = multipleBlockWrite
    }

    private enum CodingKeys: String, CodingKey {
        case uid, blockSize, blocks, lockedBlocks, multipleBlockWrite
    }

    /// Decodes a saved tag, refusing geometry ISO 15693 does not allow (1...256 blocks of
    /// 1...32 bytes, all of one size), so an edited state file cannot make the model trap.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let uid = try container.decode([UInt8].self, forKey: .uid)
        guard uid.count == 8, uid[0] == 0xE0 else {
            throw DecodingError.dataCorruptedError(
                forKey: .uid, in: container, debugDescription: "UID must have 8 bytes, E0 first")
        }
        let blockSize = try container.decode(Int.self, forKey: .blockSize)
        let blocks = try container.decode([[UInt8]].self, forKey: .blocks)
        guard (1...32).contains(blockSize), (1...256).contains(blocks.count),
            blocks.allSatisfy({ $0.count == blockSize })
        else {
            throw DecodingError.dataCorruptedError(
                forKey: .blocks, in: container,
                debugDescription: "1...256 blocks of one size in 1...32 bytes expected")
        }
        let lockedBlocks = try container.decode(Set<Int>.self, forKey: .lockedBlocks)
        guard lockedBlocks.allSatisfy({ (0...255).contains($0) }) else {
            throw DecodingError.dataCorruptedError(
                forKey: .lockedBlocks, in: container, debugDescription: "locked block number outside 0...255")
        }
        self.uid = uid
        self.blockSize = blockSize
        self.blocks = blocks
        self.lockedBlocks = lockedBlocks
        multipleBlockWrite = try container.decode(Bool.self, forKey: .multipleBlockWrite)
    }

    public mutating func powerOn() {}

    public mutating func process(_ command: [UInt8]) -> [UInt8] {
        guard command.count >= 5, command[0] == 0xFF else { return [0x6E, 0x00] }
        let block = Int(command[3])
        switch command[1] {
        case 0xB0:
            guard command.count == 5 else { return [0x67, 0x00] }
            let length = command[4] == 0 ? 256 : Int(command[4])
            guard length % blockSize == 0, block + length / blockSize <= blocks.count else { return [0x6B, 0x00] }
            return blocks[block..<block + length / blockSize].flatMap { $0 } + [0x90, 0x00]
        case 0xD6:
            let length = Int(command[4])
            guard command.count == 5 + length, length > 0, length % blockSize == 0 else { return [0x67, 0x00] }
            let count = length / blockSize
            guard count == 1 || multipleBlockWrite else { return [0x6A, 0x81] }
            guard block + count <= blocks.count else { return [0x6B, 0x00] }
            guard (block..<block + count).allSatisfy({ !lockedBlocks.contains($0) }) else { return [0x69, 0x82] }
            for index in 0..<count {
                let start = 5 + index * blockSize
                blocks[block + index] = Array(command[start..<start + blockSize])
            }
            return [0x90, 0x00]
        case 0xC2:
            return transparentExchange(command)
        default:
            return [0x6D, 0x00]
        }
    }

    // MARK: - Transparent exchange (PC/SC part 3, FF C2)

    private mutating func transparentExchange(_ command: [UInt8]) -> [UInt8] {
        guard command[2] == 0x00, command.count >= 5,
            command.count == 5 + Int(command[4]) || command.count == 6 + Int(command[4])
        else { return [0x67, 0x00] }
        let objects = Array(command[5..<5 + Int(command[4])])
        var reply: [UInt8] = []
        var offset = 0
        var index = 0
        while offset + 1 < objects.count {
            index += 1
            let tag = objects[offset]
            let length = Int(objects[offset + 1])
            guard offset + 2 + length <= objects.count else {
                return [0xC0, 0x03, UInt8(index), 0x67, 0x00, 0x90, 0x00]
            }
            let value = Array(objects[offset + 2..<offset + 2 + length])
            offset += 2 + length
            switch tag {
            case 0x80, 0x81, 0x82, 0x83, 0x84, 0x5F, 0xFF: continue // session management, timers
            case 0x8F: continue // switch protocol: already 15693
            case 0x95:
                let answer = request(value)
                reply += [0x92, 0x01, 0x00, 0x96, 0x02, 0x00, 0x00, 0x97, UInt8(answer.count)] + answer
            default:
                return [0xC0, 0x03, UInt8(index), 0x6A, 0x81, 0x90, 0x00]
            }
        }
        return [0xC0, 0x03, 0x00, 0x90, 0x00] + reply + [0x90, 0x00]
    }

    /// One raw ISO 15693-3 request (flags, command, [UID LSB first], parameters) → response.
    private mutating func request(_ frame: [UInt8]) -> [UInt8] {
        guard frame.count >= 2 else { return [0x01, 0x0F] }
        let flags = frame[0]
        let command = frame[1]
        var parameters = Array(frame.dropFirst(2))
        if flags & 0x20 != 0 {
            // Addressed: the UID (LSB first) must be ours.
            guard parameters.count >= 8, Array(parameters.prefix(8)) == uid.reversed() else { return [] }
            parameters.removeFirst(8)
        }
        let withSecurity = flags & 0x40 != 0
        switch command {
        case 0x2B: // GET SYSTEM INFORMATION: DSFID, AFI, memory size, IC reference
            return [0x00, 0x0F] + uid.reversed() + [0x00, 0x00, UInt8(blocks.count - 1), UInt8(blockSize - 1), 0x01]
        case 0x20: // READ SINGLE BLOCK
            guard let first = parameters.first, Int(first) < blocks.count else { return [0x01, 0x10] }
            let status: [UInt8] = withSecurity ? [lockedBlocks.contains(Int(first)) ? 0x01 : 0x00] : []
            return [0x00] + status + blocks[Int(first)]
        case 0x23: // READ MULTIPLE BLOCKS: first, count - 1
            guard parameters.count >= 2 else { return [0x01, 0x0F] }
            let first = Int(parameters[0])
            let count = Int(parameters[1]) + 1
            guard first + count <= blocks.count else { return [0x01, 0x10] }
            return [0x00]
                + (first..<first + count).flatMap { index in
                    (withSecurity ? [lockedBlocks.contains(index) ? 0x01 : 0x00] : []) + blocks[index]
                }
        case 0x21: // WRITE SINGLE BLOCK
            guard parameters.count == 1 + blockSize else { return [0x01, 0x0F] }
            let index = Int(parameters[0])
            guard index < blocks.count else { return [0x01, 0x10] }
            guard !lockedBlocks.contains(index) else { return [0x01, 0x12] }
            blocks[index] = Array(parameters.dropFirst())
            return [0x00]
        case 0x24: // WRITE MULTIPLE BLOCKS
            return multipleBlockWrite ? [0x01, 0x0F] : [0x01, 0x01]
        case 0x22: // LOCK BLOCK
            guard let first = parameters.first, Int(first) < blocks.count else { return [0x01, 0x10] }
            guard !lockedBlocks.contains(Int(first)) else { return [0x01, 0x11] }
            lockedBlocks.insert(Int(first))
            return [0x00]
        default:
            return [0x01, 0x01]
        }
    }
}
