import CardFlow
import Testing

@testable import CardFlowStorageCards

/// Storage-card errors in PC/SC part 3's terms (issue 35, item 13).
@Suite("Storage-card error wording")
struct StorageCardErrorWordingTests {
    @Test("63 00 from a part 3 command is a failed operation, not 'non-volatile memory changed'")
    func part3StatusWords() {
        let failed = StorageCardError.commandFailed(instruction: 0xB0, statusWord: StatusWord(0x6300), likelyCause: nil)
        #expect(!failed.description.contains("non-volatile"), "\(failed)")
        #expect(failed.description.contains("63 00 (the reader reports the operation failed"), "\(failed)")
        let unsupported = StorageCardError.commandFailed(
            instruction: 0xC2, statusWord: StatusWord(0x6A81), likelyCause: nil)
        #expect(unsupported.description.contains("not supported by the reader"), "\(unsupported)")
        // Other words keep their ISO 7816-4 reading.
        let other = StorageCardError.commandFailed(instruction: 0xB0, statusWord: StatusWord(0x6A82), likelyCause: nil)
        #expect(other.description.contains("\(StatusWord(0x6A82))"), "\(other)")
    }

    /// Found by the datasheet-written Identiv reader (Scripts/datasheet-cards-check.sh): its
    /// LOAD KEYS refusal 69 88 read "incorrect secure messaging data objects".
    @Test("LOAD KEYS' 69 8x words in PC/SC part 3's terms")
    func loadKeysStatusWords() {
        let refused = StorageCardError.commandFailed(
            instruction: 0x82, statusWord: StatusWord(0x6988), likelyCause: nil)
        #expect(refused.description.contains("69 88 (LOAD KEYS: key number not valid)"), "\(refused)")
        #expect(!refused.description.contains("secure messaging"), "\(refused)")
        let noMemory = StorageCardError.commandFailed(
            instruction: 0x82, statusWord: StatusWord(0x6987), likelyCause: nil)
        #expect(noMemory.description.contains("non-volatile memory is not available"), "\(noMemory)")
        // Another instruction's 69 88 keeps its ISO 7816-4 reading.
        let other = StorageCardError.commandFailed(instruction: 0x86, statusWord: StatusWord(0x6988), likelyCause: nil)
        #expect(other.description.contains("\(StatusWord(0x6988))"), "\(other)")
    }

    @Test("the trailer refusal does not name a flag the library does not have")
    func trailerRefusal() {
        #expect(!"\(StorageCardError.trailerWouldLockSector(sector: 3))".contains("use force"))
    }
}
