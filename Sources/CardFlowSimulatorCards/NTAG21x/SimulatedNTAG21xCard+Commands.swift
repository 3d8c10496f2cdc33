extension SimulatedNTAG21xCard {
    private typealias Answer = StorageRawFrameDialect.CardAnswer

    /// The reader's pass-through frames and the part 3 READ/UPDATE BINARY.
    public mutating func process(_ command: [UInt8]) -> [UInt8] {
        switch rawDialect.request(from: command) {
        case .frame(let frame): return rawDialect.response(to: answer(frame))
        case .answered(let bytes): return bytes
        case .notRaw: break
        }
        guard command.count >= 5, command[0] == 0xFF else { return [0x6E, 0x00] }
        switch command[1] {
        case 0xB0: return readBinary(command)
        case 0xD6: return updateBinary(command)
        default: return [0x6D, 0x00]
        }
    }

    // MARK: - Part 3

    private var refused: [UInt8] { onACSReader ? [0x63, 0x00] : [0x69, 0x82] }

    /// `FF B0 00 page Le`: a READ of four pages, the first Le bytes returned (Le 00 = 16).
    private mutating func readBinary(_ command: [UInt8]) -> [UInt8] {
        guard command.count == 5, command[2] == 0x00 else { return onACSReader ? [0x63, 0x00] : [0x6B, 0x00] }
        let length = command[4] == 0 ? 16 : Int(command[4])
        guard length <= 16 else { return onACSReader ? [0x63, 0x00] : [0x6C, 0x10] }
        // The ACS trap: the reader's own READ fails after a PWD_AUTH through its pass-through.
        if onACSReader && authenticated { return [0x63, 0x00] }
        let page = Int(command[3])
        guard page < model.pageCount else { return onACSReader ? [0x63, 0x00] : [0x6A, 0x82] }
        guard case .bytes(let bytes) = answer([0x30, command[3]]) else { return refused }
        return Array(bytes.prefix(length)) + [0x90, 0x00]
    }

    /// `FF D6 00 page 04 data`: a WRITE of one page.
    private mutating func updateBinary(_ command: [UInt8]) -> [UInt8] {
        guard command.count == 9, command[2] == 0x00, command[4] == 0x04 else {
            return onACSReader ? [0x63, 0x00] : [0x67, 0x00]
        }
        if onACSReader && authenticated { return [0x63, 0x00] }
        let page = Int(command[3])
        guard page < model.pageCount else { return onACSReader ? [0x63, 0x00] : [0x6A, 0x82] }
        guard answer([0xA2, command[3]] + command[5..<9]) == .fourBits(0x0A) else { return refused }
        return [0x90, 0x00]
    }

    // MARK: - Card commands

    /// The tag's answer to one raw frame (without CRC).
    mutating func answer(_ frame: [UInt8]) -> StorageRawFrameDialect.CardAnswer {
        guard !halted, let command = frame.first else { return .silence }
        if let page = pendingCompatibilityWrite {
            pendingCompatibilityWrite = nil
            // Second part of COMPATIBILITY_WRITE: 16 bytes, the first 4 written.
            guard frame.count == 16 else { return nak(0x0) }
            return write(page: page, Array(frame[0..<4]))
        }
        switch (command, frame.count) {
        case (0x60, 1): return .bytes(model.version)
        case (0x30, 2): return read(from: Int(frame[1]))
        case (0x3A, 3): return fastRead(from: Int(frame[1]), through: Int(frame[2]))
        case (0xA2, 6): return write(page: Int(frame[1]), Array(frame[2..<6]))
        case (0xA0, 2):
            let page = Int(frame[1])
            guard let refusal = writeRefusal(page: page) else {
                pendingCompatibilityWrite = page
                return .fourBits(0x0A)
            }
            return refusal
        case (0x39, 2): return readCounter(frame[1])
        case (0xA5, 6) where !model.isNTAG: return incrementCounter(frame[1], by: Array(frame[2..<5]))
        case (0x3C, 2): return frame[1] == 0x00 ? .bytes(signature) : nak(0x0)
        case (0x1B, 5): return authenticate(Array(frame[1..<5]))
        default: return nak(0x0)
        }
    }

    /// A NAK: the tag returns to IDLE and stays silent until powered again.
    private mutating func nak(_ code: UInt8) -> Answer {
        halted = true
        authenticated = false
        return .fourBits(code)
    }

    /// Whether `page` is readable now: below AUTH0, or PROT off, or authenticated.
    private func readable(_ page: Int) -> Bool { authenticated || !protectsReads || page < auth0 }

    private func visibleBytes(ofPage page: Int) -> [UInt8] {
        page == passwordPage || page == packPage ? [0, 0, 0, 0] : self.page(page)
    }

    private mutating func countFirstRead() {
        guard counterEnabled, !counted else { return }
        counted = true
        if nfcCounter < 0xFF_FFFF { nfcCounter += 1 }
    }

    /// READ: four pages; past the last page (or, unauthenticated under PROT, past AUTH0) the
    /// tag rolls over to page 0.
    private mutating func read(from start: Int) -> Answer {
        guard start < model.pageCount, readable(start) else { return nak(0x0) }
        countFirstRead()
        let limit = readable(model.pageCount - 1) ? model.pageCount : min(model.pageCount, auth0)
        return .bytes((0..<4).flatMap { visibleBytes(ofPage: (start + $0) % limit) })
    }

    private mutating func fastRead(from start: Int, through end: Int) -> Answer {
        guard start <= end, end < model.pageCount, (start...end).allSatisfy(readable) else { return nak(0x0) }
        countFirstRead()
        return .bytes((start...end).flatMap(visibleBytes(ofPage:)))
    }

    /// Why a write to `page` is refused now (a NAK), or nil when it may go ahead.
    private mutating func writeRefusal(page: Int) -> Answer? {
        let configuration = model.configurationPage
        guard (2..<model.pageCount).contains(page) else { return nak(0x0) }
        if page >= auth0 && !authenticated { return nak(0x0) }
        if configurationLocked && (page == configuration || page == configuration + 1) { return nak(0x0) }
        if isLocked(page) { return nak(0x0) }
        return nil
    }

    private mutating func write(page: Int, _ data: [UInt8]) -> Answer {
        if let refusal = writeRefusal(page: page) { return refusal }
        let offset = page * 4
        switch page {
        case 2:
            // Only the static lock bytes are written, ORed in.
            memory[offset + 2] |= data[2]
            memory[offset + 3] |= data[3]
        case 3:
            for index in 0..<4 { memory[offset + index] |= data[index] }
        case let lockPage where lockPage == model.dynamicLockPage:
            for index in 0..<3 { memory[offset + index] |= data[index] }
        default:
            memory.replaceSubrange(offset..<offset + 4, with: data)
        }
        return .fourBits(0x0A)
    }

    /// Static lock bits (page 2 bytes 2–3: bit 3 of byte 2 locks the CC, bits 4–7 pages 4–7,
    /// byte 3 pages 8–15) and dynamic lock bits (from page 16, in groups).
    func isLocked(_ page: Int) -> Bool {
        let staticBits = UInt16(memory[10]) | UInt16(memory[11]) << 8
        if (3...15).contains(page) { return staticBits & (1 << UInt16(page)) != 0 }
        guard let lockPage = model.dynamicLockPage, page >= 16, page < lockPage else { return false }
        let bit = (page - 16) / model.pagesPerDynamicLockBit
        guard bit < 16 else { return false }
        let dynamicBits = UInt16(memory[lockPage * 4]) | UInt16(memory[lockPage * 4 + 1]) << 8
        return dynamicBits & (1 << UInt16(bit)) != 0
    }

    private mutating func readCounter(_ number: UInt8) -> Answer {
        let value: UInt32
        if model.isNTAG {
            guard number == 0x02, counterEnabled, authenticated || !counterPasswordProtected else { return nak(0x0) }
            value = nfcCounter
        } else {
            guard number <= 2 else { return nak(0x0) }
            value = counters[Int(number)]
        }
        return .bytes([0, 8, 16].map { UInt8(truncatingIfNeeded: value >> $0) })
    }

    /// Ultralight EV1 INCR_CNT: adds a 24-bit value (LSB first); an overflow NAKs.
    private mutating func incrementCounter(_ number: UInt8, by bytes: [UInt8]) -> Answer {
        guard number <= 2 else { return nak(0x0) }
        let amount = UInt32(bytes[0]) | UInt32(bytes[1]) << 8 | UInt32(bytes[2]) << 16
        let sum = counters[Int(number)] + amount
        guard sum <= 0xFF_FFFF else { return nak(0x0) }
        counters[Int(number)] = sum
        return .fourBits(0x0A)
    }

    private mutating func authenticate(_ password: [UInt8]) -> Answer {
        let limit = authenticationLimit
        if limit > 0 && failedAuthentications >= 1 << limit { return nak(0x4) }
        guard password == page(passwordPage) else {
            failedAuthentications = min(failedAuthentications + 1, 128)
            return nak(0x0)
        }
        if limit > 0 { failedAuthentications = 0 }
        authenticated = true
        return .bytes(Array(page(packPage).prefix(2)))
    }
}
