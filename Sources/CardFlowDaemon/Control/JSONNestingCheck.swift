/// A single linear pass over a JSON text that measures how deep its arrays and objects nest
/// (brackets inside strings do not count), so that a hostile line of 100,000 `[` is refused
/// before any recursive decoder sees it.
enum JSONNestingCheck {
    /// The deepest nesting in `bytes`, stopping as soon as it exceeds `limit` (then `limit + 1`).
    static func depth(of bytes: some Sequence<UInt8>, limit: Int) -> Int {
        var depth = 0
        var deepest = 0
        var inString = false
        var escaped = false
        for byte in bytes {
            if inString {
                if escaped {
                    escaped = false
                } else if byte == UInt8(ascii: "\\") {
                    escaped = true
                } else if byte == UInt8(ascii: "\"") {
                    inString = false
                }
                continue
            }
            switch byte {
            case UInt8(ascii: "\""): inString = true
            case UInt8(ascii: "["), UInt8(ascii: "{"):
                depth += 1
                if depth > deepest {
                    deepest = depth
                    if deepest > limit { return deepest }
                }
            case UInt8(ascii: "]"), UInt8(ascii: "}"): depth = max(0, depth - 1)
            default: continue
            }
        }
        return deepest
    }
}
