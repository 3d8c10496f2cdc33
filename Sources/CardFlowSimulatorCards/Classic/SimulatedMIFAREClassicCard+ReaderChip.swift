/// The card as a reader chip that runs Crypto1 itself sees it (an NXP PN532's InDataExchange,
/// ``SimulatedPN532``): authentication with a key the chip holds, then READ and WRITE of single
/// blocks, each answered or NAKed (MF1S50 datasheet §9). The access conditions are the ones the
/// PC/SC pseudo-APDUs go through; a NAK halts the card until it is activated again.
extension SimulatedMIFAREClassicCard {
    /// The three-pass authentication (MF1S50 §9.1) of `block`'s sector with key A (`60`) or B
    /// (`61`): it succeeds when `key` is the trailer's key of that type and `uid` the four UID
    /// bytes Crypto1 starts from (the last four), the card not halted and the sector not
    /// blocked. A failure halts the card.
    public mutating func readerChipAuthenticate(block: Int, keyType: UInt8, key: [UInt8], uid: [UInt8]) -> Bool {
        authenticate(block: block, keyType: keyType, readerKey: uid == Array(self.uid.suffix(4)) ? key : nil)
    }

    /// READ (`30`, MF1S50 §9.3): the block as the card returns it (a trailer's keys masked as the
    /// access bits say); nil when the card NAKs (not authenticated, another sector, forbidden).
    public mutating func readerChipRead(block: Int) -> [UInt8]? {
        guard block < blocks.count, let data = readable(block) else {
            readerChipRefuse()
            return nil
        }
        return data
    }

    /// WRITE (`A0`, MF1S50 §9.4) of 16 bytes; false when the card NAKs either part.
    public mutating func readerChipWrite(block: Int, data: [UInt8]) -> Bool {
        guard data.count == 16 else {
            readerChipRefuse()
            return false
        }
        return writeBlock(block, data)
    }

    /// INCREMENT (`C1`) or DECREMENT (`C0`) (MF1S50 §9.5): `block`'s value changed by `operand`
    /// (4 bytes, least significant first, as on RF) into the value register; the block itself
    /// changes only with TRANSFER. False when the card NAKs: the access conditions (increment
    /// or decrement/transfer/restore for the key used), or a block that is no value block.
    public mutating func readerChipChangeValue(block: Int, operand: [UInt8], increment: Bool) -> Bool {
        guard operand.count == 4, block < blocks.count,
            dataAllowed(increment ? .increment : .decrementTransferRestore, block: block),
            let current = value(of: block)
        else {
            readerChipRefuse()
            return false
        }
        let now = Self.littleEndianValue(current)
        let amount = Self.littleEndianValue(operand)
        let result = increment ? now &+ amount : now &- amount
        valueRegister = (0..<4).map { UInt8(truncatingIfNeeded: result >> (8 * UInt32($0))) } + [blocks[block][12]]
        return true
    }

    /// RESTORE (`C2`, MF1S50 §9.5): `block`'s value into the value register as it is (to copy
    /// it with TRANSFER); the decrement/transfer/restore condition applies.
    public mutating func readerChipRestore(block: Int) -> Bool {
        guard block < blocks.count, dataAllowed(.decrementTransferRestore, block: block),
            let current = value(of: block)
        else {
            readerChipRefuse()
            return false
        }
        valueRegister = current + [blocks[block][12]]
        return true
    }

    /// TRANSFER (`B0`, MF1S50 §9.5): the value register written to `block` of the authenticated
    /// sector as a value block; false when the card NAKs (no value in the register, another
    /// sector, the decrement/transfer/restore condition).
    public mutating func readerChipTransfer(block: Int) -> Bool {
        guard let register = valueRegister, block < blocks.count,
            dataAllowed(.decrementTransferRestore, block: block)
        else {
            readerChipRefuse()
            return false
        }
        blocks[block] = Self.valueBlock(Array(register[0..<4]), address: register[4])
        return true
    }

    private static func littleEndianValue(_ bytes: [UInt8]) -> UInt32 {
        (0..<4).reduce(UInt32(0)) { $0 | UInt32(bytes[$1]) << (8 * UInt32($1)) }
    }

    /// A command the card NAKs: it halts.
    public mutating func readerChipRefuse() {
        _ = refuse()
    }
}
