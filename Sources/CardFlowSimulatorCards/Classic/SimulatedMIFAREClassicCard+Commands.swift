extension SimulatedMIFAREClassicCard {
    private typealias Rules = MIFAREClassicAccessRules

    /// The storage pseudo-APDUs the reader leaves to this model, in the reader's dialect.
    public mutating func process(_ command: [UInt8]) -> [UInt8] {
        guard command.count >= 4, command[0] == 0xFF else { return [0x6E, 0x00] }
        switch command[1] {
        case 0x82: return loadKeys(command)
        case 0x86: return generalAuthenticate(command)
        case 0x88: return obsoleteAuthenticate(command)
        case 0xB0: return readBinary(command)
        case 0xD6: return updateBinary(command)
        case 0xD7 where readerDialect == .acs: return valueOperation(command)
        case 0xB1 where readerDialect == .acs: return readValue(command)
        // OMNIKEY's value commands are not known here (its developer guide was not retrieved).
        case 0xC2 where (readerDialect == .identiv || readerDialect == .generic) && command[3] == 0x03:
            return part3ValueOperation(command)
        default: return [0x6D, 0x00]
        }
    }

    // MARK: - Reader keys and authentication

    private mutating func loadKeys(_ command: [UInt8]) -> [UInt8] {
        let wrongLength: [UInt8] = readerDialect == .acs ? [0x63, 0x00] : [0x67, 0x00]
        guard command.count == 11, command[4] == 0x06 else { return wrongLength }
        let p1 = command[2]
        let p2 = command[3]
        let key = Array(command[5..<11])
        switch readerDialect {
        case .acs:
            guard p1 == 0x00, p2 <= 0x01 else { return [0x63, 0x00] }
            volatileKeys[p2] = key
        case .identiv:
            // SCL3711 manual: status 69 88 "key number not valid".
            guard p1 == 0x00, p2 == 0x60 || p2 == 0x61 else { return [0x69, 0x88] }
            volatileKeys[p2] = key
        case .omnikey, .generic:
            guard p1 & ~0x20 == 0x00, p2 <= 0x1F else { return [0x69, 0x88] }
            if p1 & 0x20 != 0 { nonVolatileKeys[p2] = key } else { volatileKeys[p2] = key }
        }
        return [0x90, 0x00]
    }

    private mutating func generalAuthenticate(_ command: [UInt8]) -> [UInt8] {
        guard command.count == 10, command[2] == 0x00, command[3] == 0x00, command[4] == 0x05, command[5] == 0x01
        else { return readerDialect == .acs ? [0x63, 0x00] : [0x67, 0x00] }
        return authenticate(block: Int(command[6]) << 8 | Int(command[7]), keyType: command[8], keyNumber: command[9])
    }

    /// PC/SC part 3 v2.01's AUTHENTICATE `FF 88 00 blk KT KN`, which ACS readers still accept.
    private mutating func obsoleteAuthenticate(_ command: [UInt8]) -> [UInt8] {
        guard readerDialect != .identiv else { return [0x6D, 0x00] }
        guard command.count == 6, command[2] == 0x00 else { return [0x63, 0x00] }
        return authenticate(block: Int(command[3]), keyType: command[4], keyNumber: command[5])
    }

    private mutating func authenticate(block: Int, keyType: UInt8, keyNumber: UInt8) -> [UInt8] {
        let readerKey: [UInt8]?
        switch readerDialect {
        case .identiv: readerKey = keyNumber == 0x01 ? volatileKeys[keyType] : nil
        case .acs: readerKey = volatileKeys[keyNumber]
        case .omnikey, .generic: readerKey = volatileKeys[keyNumber] ?? nonVolatileKeys[keyNumber]
        }
        return authenticate(block: block, keyType: keyType, readerKey: readerKey) ? [0x90, 0x00] : [0x63, 0x00]
    }

    /// Authenticates `block`'s sector with the reader's key of `keyType` (`60` A, `61` B); a
    /// failure (no such key, another key, halted card, blocked sector) halts the card.
    mutating func authenticate(block: Int, keyType: UInt8, readerKey: [UInt8]?) -> Bool {
        authentication = nil
        valueRegister = nil
        guard let key = Rules.Key(rawValue: keyType), block < blocks.count else { return fail() }
        let sector = Self.sector(ofBlock: block)
        let trailer = blocks[Self.trailerBlock(ofSector: sector)]
        let cardKey = key == .a ? Array(trailer[0..<6]) : Array(trailer[10..<16])
        guard !halted, let readerKey, readerKey == cardKey, !blockedSectors.contains(sector) else { return fail() }
        authentication = Authentication(sector: sector, key: key)
        return true
    }

    /// A failed authentication: the card halts until re-activated. Always false.
    private mutating func fail() -> Bool {
        authentication = nil
        valueRegister = nil
        halted = true
        return false
    }

    /// A refused card command: the card NAKs and halts.
    mutating func refuse() -> [UInt8] {
        authentication = nil
        valueRegister = nil
        halted = true
        return readerDialect.refused
    }

    // MARK: - Access checks

    /// The key that authenticated `block`'s sector, if the card may use it (not halted, sector
    /// not blocked, and not a key B the trailer lets be read).
    private func usableKey(for block: Int) -> Rules.Key? {
        guard !halted, block < blocks.count, let authentication,
            authentication.sector == Self.sector(ofBlock: block), !blockedSectors.contains(authentication.sector)
        else { return nil }
        if authentication.key == .b, Rules.keyBReadable(trailer: trailerCondition(ofSector: authentication.sector)) {
            return nil
        }
        return authentication.key
    }

    private func conditions(ofSector sector: Int) -> [UInt8] {
        let trailer = blocks[Self.trailerBlock(ofSector: sector)]
        // A blocked sector is never authenticated, so its conditions are not consulted.
        return Rules.conditions(trailer[6..<9]) ?? [0b111, 0b111, 0b111, 0b111]
    }

    private func trailerCondition(ofSector sector: Int) -> UInt8 { conditions(ofSector: sector)[3] }

    func dataAllowed(_ operation: MIFAREClassicAccessRules.DataOperation, block: Int) -> Bool {
        guard let key = usableKey(for: block) else { return false }
        let sector = Self.sector(ofBlock: block)
        guard block != Self.trailerBlock(ofSector: sector) else { return false }
        let condition = conditions(ofSector: sector)[Self.conditionIndex(ofBlock: block)]
        // Block 0, the manufacturer block, is read-only whatever its condition says.
        if block == 0 { return operation == .read && Rules.allows(.read, condition: condition, key: key) }
        return Rules.allows(operation, condition: condition, key: key)
    }

    // MARK: - Blocks

    private mutating func readBinary(_ command: [UInt8]) -> [UInt8] {
        guard command.count == 5 else { return readerDialect == .acs ? [0x63, 0x00] : [0x67, 0x00] }
        let block = Int(command[2]) << 8 | Int(command[3])
        let length = command[4] == 0 ? 16 : Int(command[4])
        guard length % 16 == 0 else { return readerDialect == .acs ? [0x63, 0x00] : [0x6C, 0x10] }
        guard block < blocks.count else { return refuse() }
        var data: [UInt8] = []
        for index in block..<block + length / 16 {
            guard index < blocks.count, Self.sector(ofBlock: index) == Self.sector(ofBlock: block),
                let part = readable(index)
            else { return refuse() }
            data += part
        }
        return data + [0x90, 0x00]
    }

    /// A block as the card returns it: trailers with key A as zeros and key B as zeros unless
    /// readable; nil when the access conditions forbid reading.
    func readable(_ block: Int) -> [UInt8]? {
        let sector = Self.sector(ofBlock: block)
        guard block == Self.trailerBlock(ofSector: sector) else {
            return dataAllowed(.read, block: block) ? blocks[block] : nil
        }
        guard let key = usableKey(for: block) else { return nil }
        let condition = trailerCondition(ofSector: sector)
        let trailer = blocks[block]
        let zeros6 = [UInt8](repeating: 0, count: 6)
        let access =
            Rules.mayRead(.accessBits, condition: condition, key: key)
            ? Array(trailer[6..<10]) : [UInt8](repeating: 0, count: 4)
        let keyB = Rules.mayRead(.keyB, condition: condition, key: key) ? Array(trailer[10..<16]) : zeros6
        return zeros6 + access + keyB
    }

    private mutating func updateBinary(_ command: [UInt8]) -> [UInt8] {
        guard command.count == 21, command[4] == 0x10 else {
            return readerDialect == .acs ? [0x63, 0x00] : [0x67, 0x00]
        }
        let block = Int(command[2]) << 8 | Int(command[3])
        return writeBlock(block, Array(command[5..<21])) ? [0x90, 0x00] : readerDialect.refused
    }

    /// WRITE of one block as the access conditions allow it (a trailer: the parts the key may
    /// write); false when the card refuses (it NAKs and halts).
    mutating func writeBlock(_ block: Int, _ data: [UInt8]) -> Bool {
        guard block < blocks.count else {
            _ = refuse()
            return false
        }
        let sector = Self.sector(ofBlock: block)
        if block == Self.trailerBlock(ofSector: sector) { return writeTrailer(block, data) == [0x90, 0x00] }
        guard dataAllowed(.write, block: block) else {
            _ = refuse()
            return false
        }
        blocks[block] = data
        return true
    }

    /// Writes the trailer parts the key may write and keeps the others; refuses when it may
    /// write none. New access bits with disagreeing copies block the sector for good.
    private mutating func writeTrailer(_ block: Int, _ data: [UInt8]) -> [UInt8] {
        guard let key = usableKey(for: block) else { return refuse() }
        let sector = Self.sector(ofBlock: block)
        let condition = trailerCondition(ofSector: sector)
        let keyA = Rules.mayWrite(.keyA, condition: condition, key: key)
        let access = Rules.mayWrite(.accessBits, condition: condition, key: key)
        let keyB = Rules.mayWrite(.keyB, condition: condition, key: key)
        guard keyA || access || keyB else { return refuse() }
        var trailer = blocks[block]
        if keyA { trailer.replaceSubrange(0..<6, with: data[0..<6]) }
        if access { trailer.replaceSubrange(6..<10, with: data[6..<10]) }
        if keyB { trailer.replaceSubrange(10..<16, with: data[10..<16]) }
        blocks[block] = trailer
        if Rules.conditions(trailer[6..<9]) == nil {
            blockedSectors.insert(sector)
            authentication = nil
        }
        return [0x90, 0x00]
    }

    // MARK: - Value blocks (ACS FF D7 / FF B1)

    /// The value of a well-formed value block (datasheet §8.6.2.1), nil otherwise.
    func value(of block: Int) -> [UInt8]? {
        let bytes = blocks[block]
        let plain = Array(bytes[0..<4])
        guard plain == Array(bytes[8..<12]), (0..<4).allSatisfy({ bytes[$0] == ~bytes[$0 + 4] }),
            bytes[12] == bytes[14], bytes[13] == bytes[15], bytes[12] == ~bytes[13]
        else { return nil }
        return plain
    }

    static func valueBlock(_ littleEndian: [UInt8], address: UInt8) -> [UInt8] {
        littleEndian + littleEndian.map { ~$0 } + littleEndian + [address, ~address, address, ~address]
    }

    private mutating func valueOperation(_ command: [UInt8]) -> [UInt8] {
        guard command.count >= 5, command[2] == 0x00, command.count == 5 + Int(command[4]) else { return [0x63, 0x00] }
        let block = Int(command[3])
        guard block < blocks.count else { return refuse() }
        if command[4] == 0x02, command[5] == 0x03 {
            return restore(from: block, to: Int(command[6]))
        }
        guard command[4] == 0x05 else { return [0x63, 0x00] }
        // The APDU carries the value most significant byte first; the card stores it LSB first.
        let operand = Array(command[6..<10].reversed())
        let amount = UInt32(operand[0]) | UInt32(operand[1]) << 8 | UInt32(operand[2]) << 16 | UInt32(operand[3]) << 24
        switch command[5] {
        case 0x00:
            guard dataAllowed(.write, block: block) else { return refuse() }
            blocks[block] = Self.valueBlock(operand, address: UInt8(block))
            return [0x90, 0x00]
        case 0x01, 0x02:
            return changeValue(block: block, increment: command[5] == 0x01, by: amount) ?? [0x90, 0x00]
        default:
            return [0x63, 0x00]
        }
    }

    /// PC/SC part 3's increment/decrement (2.02 amendment 1 §3.2.2.1.10, as Identiv's uTrust and
    /// CLOUD reference manuals give it, `PAPDU_MIFARE_VALUE_BLK_NEW`): `FF C2 00 03 Lc` with one
    /// action object, `A0` increment or `A1` decrement, holding the destination `80 01 BLK` and
    /// the amount `81 04 VALUE` (least significant byte first), then `Le`. The answer is the
    /// error-status object `C0 03 XX SW1 SW2` (XX: the failing data object, 00 for none) and
    /// SW1 SW2: `C0 03 00 90 00 90 00` when done; the card's refusal as its SW otherwise.
    private mutating func part3ValueOperation(_ command: [UInt8]) -> [UInt8] {
        func status(_ object: UInt8, _ sw: [UInt8]) -> [UInt8] { [0xC0, 0x03, object] + sw + sw }
        guard command.count >= 5, command[2] == 0x00 else { return status(0x00, [0x67, 0x00]) }
        let length = Int(command[4])
        guard command.count == 5 + length || command.count == 6 + length else { return status(0x00, [0x67, 0x00]) }
        let data = Array(command[5..<5 + length])
        guard data.count >= 2, data[0] == 0xA0 || data[0] == 0xA1, Int(data[1]) == data.count - 2 else {
            return status(0x01, [0x6A, 0x81])
        }
        var block: Int?
        var amount: [UInt8]?
        var offset = 2
        while offset + 2 <= data.count {
            let tag = data[offset]
            let size = Int(data[offset + 1])
            guard offset + 2 + size <= data.count else { return status(0x01, [0x67, 0x00]) }
            let value = Array(data[offset + 2..<offset + 2 + size])
            switch (tag, size) {
            case (0x80, 1): block = Int(value[0])
            case (0x81, 4): amount = value
            default: return status(0x01, [0x6A, 0x81])
            }
            offset += 2 + size
        }
        guard offset == data.count, let block, let amount, block < blocks.count else {
            return status(0x01, [0x67, 0x00])
        }
        let operand = (0..<4).reduce(UInt32(0)) { $0 | UInt32(amount[$1]) << (8 * UInt32($1)) }
        if let refused = changeValue(block: block, increment: data[0] == 0xA0, by: operand) {
            return status(0x01, refused)
        }
        return status(0x00, [0x90, 0x00])
    }

    /// Increment or decrement into the value register, then transfer to the same block (what
    /// both the ACS command and PC/SC part 3's do); nil when done, else the refusal's SW.
    private mutating func changeValue(block: Int, increment: Bool, by amount: UInt32) -> [UInt8]? {
        guard dataAllowed(increment ? .increment : .decrementTransferRestore, block: block),
            dataAllowed(.decrementTransferRestore, block: block), let current = value(of: block)
        else { return refuse() }
        let now = (0..<4).reduce(UInt32(0)) { $0 | UInt32(current[$1]) << (8 * UInt32($1)) }
        let result = increment ? now &+ amount : now &- amount
        let bytes = (0..<4).map { UInt8(truncatingIfNeeded: result >> (8 * UInt32($0))) }
        blocks[block] = Self.valueBlock(bytes, address: blocks[block][12])
        return nil
    }

    /// Restore `source` into the value register, then transfer it to `target` (same sector).
    private mutating func restore(from source: Int, to target: Int) -> [UInt8] {
        guard target < blocks.count, Self.sector(ofBlock: source) == Self.sector(ofBlock: target),
            dataAllowed(.decrementTransferRestore, block: source),
            dataAllowed(.decrementTransferRestore, block: target),
            let current = value(of: source)
        else { return refuse() }
        blocks[target] = Self.valueBlock(current, address: blocks[source][12])
        return [0x90, 0x00]
    }

    private mutating func readValue(_ command: [UInt8]) -> [UInt8] {
        guard command.count == 5, command[2] == 0x00 else { return [0x63, 0x00] }
        let block = Int(command[3])
        guard block < blocks.count, dataAllowed(.read, block: block), let current = value(of: block) else {
            return refuse()
        }
        return Array(current.reversed()) + [0x90, 0x00]
    }
}
