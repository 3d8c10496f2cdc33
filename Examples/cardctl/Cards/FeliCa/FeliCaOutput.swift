/// What the `felica` commands print with `--json`, one type per answer, keys in declaration
/// order (``KeyOrderedJSONEncoder``).
enum FeliCaOutput {
    /// `felica poll`.
    struct Polled: Encodable {
        let idm: String
        let pmm: String
        let product: String
        /// Empty when the card did not answer with one.
        let systemCode: String
    }

    /// `felica read`.
    struct Blocks: Encodable {
        let block: Int
        let count: Int
        let data: String
    }

    /// `felica ndef format`.
    struct NDEFFormatted: Encodable {
        let capacity: Int
        let formatted = true
        let maximumBlocks: Int
    }
}
