/// `3B 81 80 01`: bytes as spaced upper-case hex, for logs and descriptions.
func pcscHex(_ bytes: some Sequence<UInt8>) -> String {
    let digits = Array("0123456789ABCDEF")
    return bytes.map { String([digits[Int($0 >> 4)], digits[Int($0 & 0x0F)]]) }.joined(separator: " ")
}
