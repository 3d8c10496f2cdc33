/// Hex formatting for descriptions (internal; the package's hex parser lives in CardFlow).
enum Hex {
    private static let digits = Array("0123456789ABCDEF")

    static func byte(_ value: UInt8) -> String {
        String([digits[Int(value >> 4)], digits[Int(value & 0x0F)]])
    }

    static func string(_ bytes: some Sequence<UInt8>) -> String {
        bytes.map(byte).joined()
    }
}
