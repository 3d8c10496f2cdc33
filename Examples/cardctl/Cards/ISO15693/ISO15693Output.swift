/// What the `iso15693` commands print with `--json`, one type per answer, keys in declaration
/// order (``KeyOrderedJSONEncoder``).
enum ISO15693Output {
    /// `iso15693 info`.
    struct Info: Encodable {
        let blockCount: Int
        let blockSize: Int
        let uid: String
    }

    /// `iso15693 exchange`: what was read, and what the command gave back and was written.
    struct Exchanged: Encodable {
        let read: String
        let uid: String
        let written: String
    }
}
