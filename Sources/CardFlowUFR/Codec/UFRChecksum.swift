/// The uFR COM protocol's checksum: the XOR of the bytes, plus 7 (mod 256). A 7-byte packet's
/// checksum covers its bytes 0…5; an EXT block's covers its data bytes.
///
/// ```swift
/// UFRChecksum.of([0x55, 0x10, 0xAA, 0x00, 0x00, 0x00])   // 0xF6 (GET_READER_TYPE)
/// ```
public enum UFRChecksum {
    /// The checksum of `bytes`.
    public static func of(_ bytes: some Sequence<UInt8>) -> UInt8 {
        bytes.reduce(0, ^) &+ 7
    }
}
