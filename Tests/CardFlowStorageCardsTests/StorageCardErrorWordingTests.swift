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

    @Test("the trailer refusal does not name a flag the library does not have")
    func trailerRefusal() {
        #expect(!"\(StorageCardError.trailerWouldLockSector(sector: 3))".contains("use force"))
    }
}
