/// How a full CMAC block is shortened before it goes on the wire.
public enum MACTruncation {
    /// DESFire EV1 (sessions from 0x1A / 0xAA): the first 8 bytes of the CMAC.
    /// For DES-family ciphers this is the whole 8-byte block.
    public static func ev1(_ mac: [UInt8]) -> [UInt8] {
        Array(mac.prefix(8))
    }

    /// DESFire EV2/EV3 secure channel: the odd-indexed bytes 1, 3, 5, …, 15 of a 16-byte AES CMAC.
    public static func ev2OddBytes(_ mac: [UInt8]) -> [UInt8] {
        stride(from: 1, to: mac.count, by: 2).map { mac[$0] }
    }
}
