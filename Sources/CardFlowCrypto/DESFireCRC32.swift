/// The CRC32 DESFire EV1 appends to enciphered data and ChangeKey cryptograms.
///
/// Reflected polynomial 0xEDB88320 (IEEE 802.3), initial value 0xFFFFFFFF, **no final XOR**
/// (CRC-32/JAMCRC, i.e. `~zlib.crc32`), transmitted least significant byte first.
public enum DESFireCRC32 {
    private static let table: [UInt32] = (0..<256).map { index in
        var value = UInt32(index)
        for _ in 0..<8 {
            value = value & 1 != 0 ? (value >> 1) ^ 0xEDB8_8320 : value >> 1
        }
        return value
    }

    /// The CRC value of `data`.
    public static func checksum(_ data: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in data {
            crc = (crc >> 8) ^ table[Int((crc ^ UInt32(byte)) & 0xFF)]
        }
        return crc
    }

    /// The CRC of `data` as the 4 bytes DESFire transmits (little-endian).
    public static func bytes(_ data: [UInt8]) -> [UInt8] {
        let crc = checksum(data)
        return (0..<4).map { UInt8(truncatingIfNeeded: crc >> (8 * $0)) }
    }
}
