/// ISO/IEC 14443-3 CRC_A, used by DESFire legacy (D40) sessions.
///
/// Reflected polynomial 0x8408 (x^16 + x^12 + x^5 + 1), initial value 0x6363, no final XOR,
/// transmitted least significant byte first.
public enum CRC16A {
    /// The CRC value of `data`.
    public static func checksum(_ data: [UInt8]) -> UInt16 {
        var crc: UInt16 = 0x6363
        for byte in data {
            crc ^= UInt16(byte)
            for _ in 0..<8 {
                crc = crc & 1 != 0 ? (crc >> 1) ^ 0x8408 : crc >> 1
            }
        }
        return crc
    }

    /// The CRC of `data` as the 2 bytes transmitted (little-endian).
    public static func bytes(_ data: [UInt8]) -> [UInt8] {
        let crc = checksum(data)
        return [UInt8(truncatingIfNeeded: crc), UInt8(truncatingIfNeeded: crc >> 8)]
    }
}
