import CardFlow
import CardFlowNDEF

/// What the NDEF commands print with `--json`: records (`ndef decode`, `ndef read` and the
/// card families' `ndef read`, sorted keys), and the bytes a family's `ndef write` wrote.
enum NDEFOutput {
    /// One record in `ndef decode --json`: fields in hex, Text and URI values decoded.
    struct Record: Encodable {
        let tnf: Int
        let type: String
        let id: String
        let payload: String
        let text: String?
        let language: String?
        let uri: String?

        init(_ record: NDEFRecord, mode: NDEFDecodingMode) {
            tnf = Int(record.tnf.rawValue)
            type = record.type.hexString
            id = record.id.hexString
            payload = record.payload.hexString
            let textRecord = try? TextRecord(record, mode: mode)
            text = textRecord?.text
            language = textRecord?.language
            uri = (try? URIRecord(record, mode: mode))?.uri
        }
    }

    /// `classic ndef write`, `felica ndef write`: `{"bytesWritten":N}`.
    struct MessageWritten: Encodable {
        let bytesWritten: Int
    }
}
