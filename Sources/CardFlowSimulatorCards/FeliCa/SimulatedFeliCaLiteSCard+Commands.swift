extension SimulatedFeliCaLiteSCard {
    private typealias Answer = StorageRawFrameDialect.CardAnswer

    /// The card's answer to one FeliCa frame (`LEN CODE …`).
    mutating func answer(_ frame: [UInt8]) -> StorageRawFrameDialect.CardAnswer {
        guard frame.count >= 2, Int(frame[0]) == frame.count else { return .silence }
        switch frame[1] {
        case 0x00: return polling(frame)
        case 0x06, 0x08:
            guard frame.count >= 10, Array(frame[2..<10]) == idm else { return .silence }
            return frame[1] == 0x06 ? readWithoutEncryption(frame) : writeWithoutEncryption(frame)
        default: return .silence
        }
    }

    // MARK: - Polling

    private func polling(_ frame: [UInt8]) -> Answer {
        guard frame.count == 6 else { return .silence }
        let requested = UInt16(frame[2]) << 8 | UInt16(frame[3])
        let systems: [UInt16] = ndefEnabled ? [0x12FC, 0x88B4] : [0x88B4]
        guard let system = systems.first(where: { Self.matches(requested, $0) }) else { return .silence }
        let head: [UInt8] = [0x01] + idm + Self.pmm
        switch frame[4] {
        // head is 17 bytes: LEN 0x12 alone, 0x14 with two bytes of request data.
        case 0x00: return .bytes([0x12] + head)
        case 0x01:
            return .bytes([0x14] + head + [UInt8(truncatingIfNeeded: system >> 8), UInt8(truncatingIfNeeded: system)])
        case 0x02: return .bytes([0x14] + head + [0x00, 0x83])
        default: return .silence
        }
    }

    /// `FF` in a byte of the requested code matches any value of that byte.
    private static func matches(_ requested: UInt16, _ system: UInt16) -> Bool {
        let high = requested >> 8 == 0xFF || requested >> 8 == system >> 8
        let low = requested & 0xFF == 0xFF || requested & 0xFF == system & 0xFF
        return high && low
    }

    // MARK: - Read and write

    /// The parsed service and block lists, or the status flags to answer with.
    private struct Request {
        var service: UInt16
        var blocks: [Int]
        var dataOffset: Int
    }

    private func parse(_ frame: [UInt8], blockLimit: ClosedRange<Int>) -> Result<Request, FlagError> {
        // LEN CODE IDm(8) n SC(2n) m BLK...
        guard frame.count >= 11, frame[10] == 1, frame.count >= 14 else { return .failure(FlagError(0xFF, 0xA1)) }
        let service = UInt16(frame[11]) | UInt16(frame[12]) << 8
        guard service == 0x000B || service == 0x0009 else { return .failure(FlagError(0xFF, 0xA1)) }
        let count = Int(frame[13])
        guard blockLimit.contains(count) else { return .failure(FlagError(0xFF, 0xA2)) }
        var blocks: [Int] = []
        var index = 14
        for element in 0..<count {
            guard index < frame.count else { return .failure(FlagError(0xFF, 0xA2)) }
            let head = frame[index]
            let bit = UInt8(1 << (element % 8))
            guard head & 0x0F == 0 else { return .failure(FlagError(bit, 0xA3)) }
            guard head & 0x70 == 0 else { return .failure(FlagError(bit, 0xA7)) }
            if head & 0x80 != 0 {
                guard index + 1 < frame.count else { return .failure(FlagError(0xFF, 0xA2)) }
                blocks.append(Int(frame[index + 1]))
                index += 2
            } else {
                guard index + 2 < frame.count else { return .failure(FlagError(0xFF, 0xA2)) }
                blocks.append(Int(frame[index + 1]) | Int(frame[index + 2]) << 8)
                index += 3
            }
        }
        return .success(Request(service: service, blocks: blocks, dataOffset: index))
    }

    private struct FlagError: Error {
        let flag1: UInt8
        let flag2: UInt8
        init(_ flag1: UInt8, _ flag2: UInt8) {
            self.flag1 = flag1
            self.flag2 = flag2
        }
    }

    private func status(_ code: UInt8, _ flags: FlagError) -> Answer {
        .bytes([12, code] + idm + [flags.flag1, flags.flag2])
    }

    private func readWithoutEncryption(_ frame: [UInt8]) -> Answer {
        let request: Request
        switch parse(frame, blockLimit: 1...4) {
        case .success(let parsed): request = parsed
        case .failure(let flags): return status(0x07, flags)
        }
        guard request.dataOffset == frame.count else { return status(0x07, FlagError(0xFF, 0xA2)) }
        var data: [UInt8] = []
        for (element, block) in request.blocks.enumerated() {
            let bit = UInt8(1 << (element % 8))
            if block <= 0x0D, readRestricted(block) { return status(0x07, FlagError(bit, 0xB1)) }
            guard let bytes = read(block) else { return status(0x07, FlagError(bit, 0xA8)) }
            data += bytes
        }
        // At most four blocks (parse's limit): LEN ≤ 77.
        let count = request.blocks.count
        return .bytes(
            [UInt8(truncatingIfNeeded: 13 + data.count), 0x07] + idm + [0x00, 0x00, UInt8(truncatingIfNeeded: count)]
                + data)
    }

    private mutating func writeWithoutEncryption(_ frame: [UInt8]) -> Answer {
        let request: Request
        switch parse(frame, blockLimit: 1...1) {
        case .success(let parsed): request = parsed
        case .failure(let flags): return status(0x09, flags)
        }
        guard request.service == 0x0009 else { return status(0x09, FlagError(0xFF, 0xA6)) }
        guard frame.count == request.dataOffset + 16 else { return status(0x09, FlagError(0xFF, 0xA2)) }
        let data = Array(frame[request.dataOffset...])
        guard write(request.blocks[0], data) else { return status(0x09, FlagError(0x01, 0xA8)) }
        return status(0x09, FlagError(0x00, 0x00))
    }

    private func readRestricted(_ block: Int) -> Bool {
        let restricted = UInt16(memoryConfiguration[6]) | UInt16(memoryConfiguration[7]) << 8
        return restricted >> block & 1 == 1
    }

    /// A block's 16 bytes; nil for a block the model does not have.
    private func read(_ block: Int) -> [UInt8]? {
        switch block {
        case 0x00...0x0E: return Array(userBlocks[block * 16..<block * 16 + 16])
        case 0x82: return identification
        case 0x83: return idm + Self.pmm
        case 0x84: return [0x0B, 0x00] + [UInt8](repeating: 0, count: 14)
        case 0x85: return [0x88, 0xB4] + [UInt8](repeating: 0, count: 14)
        case 0x86: return cardKeyVersion
        case 0x87: return [UInt8](repeating: 0, count: 16)
        case 0x88: return memoryConfiguration
        case 0x90:
            return (0..<3).map { UInt8(truncatingIfNeeded: writeCount >> ($0 * 8)) }
                + [UInt8](repeating: 0, count: 13)
        default: return nil
        }
    }

    /// Writes a block if the memory configuration allows it.
    private mutating func write(_ block: Int, _ data: [UInt8]) -> Bool {
        switch block {
        case 0x00...0x0E:
            let writable = UInt16(memoryConfiguration[0]) | UInt16(memoryConfiguration[1]) << 8
            let restricted =
                UInt16(memoryConfiguration[8]) | UInt16(memoryConfiguration[9]) << 8 | UInt16(memoryConfiguration[10])
                | UInt16(memoryConfiguration[11]) << 8
            guard writable >> block & 1 == 1, restricted >> block & 1 == 0 else { return false }
            userBlocks.replaceSubrange(block * 16..<block * 16 + 16, with: data)
            writeCount = min(0xFF_FFFF, writeCount + 1)
            return true
        case 0x82, 0x86, 0x87, 0x88:
            guard systemBlocksWritable else { return false }
            switch block {
            case 0x82: identification = data
            case 0x86: cardKeyVersion = data
            case 0x87: cardKey = data
            default:
                var configuration = data
                // A writable bit once cleared stays cleared.
                configuration[0] &= memoryConfiguration[0]
                configuration[1] &= memoryConfiguration[1]
                memoryConfiguration = configuration
            }
            return true
        default:
            return false
        }
    }
}
