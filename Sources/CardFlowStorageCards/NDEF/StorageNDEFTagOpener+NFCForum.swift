import CardFlow
import CardFlowNDEF

extension StorageNDEFTagOpener {
    /// NFC Forum Type 2, 4 and 5 tags, told apart by `NDEFTag.detect(on:)` (the fallback for
    /// cards no other opener claims).
    public static let nfcForum = StorageNDEFTagOpener(
        name: "NFC Forum Type 2/4/5", claims: { _ in true },
        open: { session, _, _ in
            let tag = try await NDEFTag.detect(on: session)
            return StorageNDEFTag(
                kind: tag.kindName, read: { try await tag.readMessageBytes() },
                write: { try await tag.writeMessageBytes($0) })
        })
}

extension NDEFTag {
    fileprivate var kindName: String {
        switch self {
        case .type2: "NFC Forum Type 2"
        case .type4: "NFC Forum Type 4"
        case .type5: "NFC Forum Type 5"
        }
    }
}
