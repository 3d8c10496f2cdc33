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

    /// A command the card NAKs: it halts.
    public mutating func readerChipRefuse() {
        _ = refuse()
    }
}
