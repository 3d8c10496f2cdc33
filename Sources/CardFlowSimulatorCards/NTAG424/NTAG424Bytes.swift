/// Byte-wise XOR of equal-length arrays (shorter wins; never traps).
func ntag424XOR(_ lhs: [UInt8], _ rhs: [UInt8]) -> [UInt8] { zip(lhs, rhs).map { $0 ^ $1 } }

/// Uppercase ASCII hex, as SDM mirrors bytes into the file.
func ntag424ASCIIHex(_ bytes: [UInt8]) -> [UInt8] {
    let digits = Array("0123456789ABCDEF".utf8)
    return bytes.flatMap { [digits[Int($0 >> 4)], digits[Int($0 & 0x0F)]] }
}
