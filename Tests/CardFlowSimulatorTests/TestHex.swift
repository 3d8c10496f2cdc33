/// Bytes from a hex string with optional spaces, for readable test vectors.
func bytes(_ text: String) -> [UInt8] {
    let digits = text.filter { !$0.isWhitespace }
    precondition(digits.count % 2 == 0, "odd hex string \(text)")
    var result: [UInt8] = []
    var index = digits.startIndex
    while index < digits.endIndex {
        let next = digits.index(index, offsetBy: 2)
        result.append(UInt8(digits[index..<next], radix: 16)!)
        index = next
    }
    return result
}

/// Uppercase spaced hex, for failure messages.
func hexString(_ data: [UInt8]) -> String {
    data.map {
        String($0, radix: 16, uppercase: true).count == 1
            ? "0" + String($0, radix: 16, uppercase: true) : String($0, radix: 16, uppercase: true)
    }
    .joined(separator: " ")
}
