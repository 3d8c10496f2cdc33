/// The CRC32 DESFire EV1 appends to enciphered data and ChangeKey cryptograms.
///
/// Reflected polynomial 0xEDB88320 (IEEE 802.3), initial value 0xFFFFFFFF, **no final XOR**
/// (CRC-32/JAMCRC, i.e. `~zlib.crc32`), transmitted least significant byte first.
public enum DESFireCRC32 {
    /// The initial value, 0xFFFFFFFF: the CRC of no bytes.
    public static let initialValue: UInt32 = 0xFFFF_FFFF

    private static let table: [UInt32] = (0..<256).map { index in
        var value = UInt32(index)
        for _ in 0..<8 {
            value = value & 1 != 0 ? (value >> 1) ^ 0xEDB8_8320 : value >> 1
        }
        return value
    }

    /// The CRC value of `data`.
    public static func checksum(_ data: [UInt8]) -> UInt32 {
        checksum(data[...])
    }

    /// The CRC value of `data` continued from `crc`, the value of the bytes before it (by default
    /// none): `checksum(a + b) == checksum(b[...], continuing: checksum(a))`. Reads the bytes
    /// where they are, so a CRC over part of a buffer, or over data and a trailing byte, needs no copy.
    public static func checksum(_ data: ArraySlice<UInt8>, continuing crc: UInt32 = initialValue) -> UInt32 {
        var crc = crc
        for byte in data { crc = checksum(appending: byte, to: crc) }
        return crc
    }

    /// The CRC value of one more byte after bytes whose CRC value is `crc`:
    /// `checksum(appending: b, to: checksum(a)) == checksum(a + [b])`.
    public static func checksum(appending byte: UInt8, to crc: UInt32) -> UInt32 {
        (crc >> 8) ^ table[Int((crc ^ UInt32(byte)) & 0xFF)]
    }

    /// The CRC of `data` as the 4 bytes DESFire transmits (little-endian).
    public static func bytes(_ data: [UInt8]) -> [UInt8] {
        let crc = checksum(data)
        return (0..<4).map { UInt8(truncatingIfNeeded: crc >> (8 * $0)) }
    }

    /// Appends `crc` as the 4 bytes DESFire transmits (little-endian) to `bytes`.
    public static func append(_ crc: UInt32, to bytes: inout [UInt8]) {
        for shift in stride(from: 0, to: 32, by: 8) { bytes.append(UInt8(truncatingIfNeeded: crc >> shift)) }
    }
}
