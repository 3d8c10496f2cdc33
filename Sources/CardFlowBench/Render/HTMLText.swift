/// Text from a bench document made safe inside HTML and SVG: element content and quoted
/// attribute values alike.
enum HTMLText {
    /// `&`, `<`, `>`, `"` and `'` as character references; everything else as it is.
    ///
    /// - Parameter text: any text (reader names, errors, command lines).
    /// - Returns: the escaped text.
    static func escape(_ text: String) -> String {
        var escaped = ""
        escaped.reserveCapacity(text.utf8.count)
        for character in text.unicodeScalars {
            switch character {
            case "&": escaped += "&amp;"
            case "<": escaped += "&lt;"
            case ">": escaped += "&gt;"
            case "\"": escaped += "&quot;"
            case "'": escaped += "&#39;"
            default: escaped.unicodeScalars.append(character)
            }
        }
        return escaped
    }
}
