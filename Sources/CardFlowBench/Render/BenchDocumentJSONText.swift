#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A bench document's JSON as text, for the report's raw-JSON block: pretty-printed with sorted
/// keys, so the same document always gives the same text.
enum BenchDocumentJSONText {
    /// The JSON, or `nil` if it cannot be encoded (a non-finite number).
    ///
    /// - Parameter document: the document.
    /// - Returns: the JSON text.
    static func text(_ document: BenchDocument) -> String? {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        guard let data = try? encoder.encode(document) else { return nil }
        return String(decoding: data, as: UTF8.self)
    }
}
