import ArgumentParser
import CardFlow
import CardFlowStorageCards

/// `--variant`: the PC/SC part 3 dialect of the reader for the storage-card commands (`ntag`,
/// `ndef`), for a reader whose USB IDs CardFlow cannot see or does not know (behind pcscd, a
/// vpcd network reader).
struct ReaderDialectOption: ParsableArguments {
    @Option(help: "The reader dialect: acs, identiv, omnikey or genericPart3 (default: from the reader's USB IDs).")
    var variant: StorageReaderFamily?

    /// The dialect to speak on `reader`: the family named, else looked up from its USB IDs.
    func readerVariant(for reader: ReaderInfo) -> StorageReaderVariant {
        .lookup(family: variant, vendorID: reader.vendorID, productID: reader.productID)
    }
}
