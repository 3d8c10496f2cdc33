// InDataExchange with a MIFARE Classic target (UM0701-02 §7.3.8, the MIFARE commands in DataOut;
// MF1S50 datasheet §9, the card's commands). The PN532 runs Crypto1 itself: the host sends the
// key and the UID in clear and gets a status, and the sector's later READ and WRITE go as plain
// commands, which the PN532 encrypts on RF. Nothing of Crypto1 reaches the host, so the card
// model is asked through its entry points for such a reader chip
// (`SimulatedMIFAREClassicCard+ReaderChip.swift`).
//
// - `60|61 block key(6) uid(4)`: authentication with key A or B; `uid` is the four UID bytes
//   Crypto1 takes (the last four of a 7-byte UID). Another length is a syntax error.
// - `30 block` → 16 bytes; `A0 block data(16)` → no data (the PN532 absorbs both ACKs).
// - Status `00` done, `14` (§7.1: MIFARE authentication error) for a failed authentication and
//   for a command the card NAKs (sector not authenticated, access conditions): the card then
//   halts until the host selects it again (InListPassiveTarget), as MF1S50 §9 has it.
// - Value commands: `C1|C0 block operand(4)` increment / decrement and `C2 block 00000000`
//   restore fill the card's value register (the PN532 sends the operand as the command's second
//   part, MF1S50 §9.5; libnfc's mifare.c sends six bytes for all three), `B0 block` transfers it.
extension SimulatedPN532 {
    /// The InDataExchange answer (status and DataIn) of a MIFARE Classic `card` to `data`; nil
    /// for the PN532's syntax error (a MIFARE command of the wrong length).
    static func classicExchange(_ data: [UInt8], card: inout SimulatedMIFAREClassicCard) -> [UInt8]? {
        guard let command = data.first else { return [Status.invalidParameter] }
        switch command {
        case 0x60, 0x61:
            guard data.count == 12 else { return nil }
            let authenticated = card.readerChipAuthenticate(
                block: Int(data[1]), keyType: command, key: Array(data[2..<8]), uid: Array(data[8..<12]))
            return [authenticated ? 0x00 : Status.authentication]
        case 0x30:
            guard data.count == 2 else { return nil }
            guard let block = card.readerChipRead(block: Int(data[1])) else { return [Status.authentication] }
            return [0x00] + block
        case 0xA0:
            guard data.count == 18 else { return nil }
            let written = card.readerChipWrite(block: Int(data[1]), data: Array(data[2...]))
            return [written ? 0x00 : Status.authentication]
        case 0xC0, 0xC1, 0xC2:
            guard data.count == 6 else { return nil }
            let block = Int(data[1])
            let done =
                command == 0xC2
                ? card.readerChipRestore(block: block)
                : card.readerChipChangeValue(block: block, operand: Array(data[2..<6]), increment: command == 0xC1)
            return [done ? 0x00 : Status.authentication]
        case 0xB0:
            guard data.count == 2 else { return nil }
            return [card.readerChipTransfer(block: Int(data[1])) ? 0x00 : Status.authentication]
        default:
            card.readerChipRefuse()
            return [Status.authentication]
        }
    }
}
