import CardFlow

/// Hex text from the outside world checked as the seed checks it: first the length rule, then
/// the hex rule, each with its own library error code.
enum TONHexInput {
    /// Parses `text` as hex.
    ///
    /// - Parameters:
    ///   - lengths: allowed lengths in hex characters.
    ///   - lengthCode: the error code when the length is outside `lengths` or odd.
    ///   - formatCode: the error code when the text is not hex.
    static func bytes(_ text: String, lengths: ClosedRange<Int>, lengthCode: Int, formatCode: Int) throws(TONError)
        -> [UInt8]
    {
        let count = text.utf8.count
        guard lengths.contains(count), count % 2 == 0 else { throw .library(code: lengthCode) }
        guard let bytes = try? [UInt8](hex: text) else { throw .library(code: formatCode) }
        return bytes
    }

    /// Hex text whose length is checked after parsing (the seed checks hex first for these).
    static func bytes(_ text: String, formatCode: Int) throws(TONError) -> [UInt8] {
        guard let bytes = try? [UInt8](hex: text) else { throw .library(code: formatCode) }
        return bytes
    }
}
