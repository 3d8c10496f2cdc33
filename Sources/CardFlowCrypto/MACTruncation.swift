/// How a full CMAC block is shortened before it goes on the wire.
public enum MACTruncation {
    /// DESFire EV1 (sessions from 0x1A / 0xAA): the first 8 bytes of the CMAC.
    /// For DES-family ciphers this is the whole 8-byte block.
    public static func ev1(_ mac: [UInt8]) -> [UInt8] {
        Array(mac.prefix(8))
    }

    /// DESFire EV2/EV3 secure channel: the odd-indexed bytes 1, 3, 5, …, 15 of a 16-byte AES CMAC.
    /// The odd bytes move to the front of `mac`'s own storage, so a CMAC result handed over is
    /// shortened without a new array.
    public static func ev2OddBytes(_ mac: consuming [UInt8]) -> [UInt8] {
        let kept = mac.count / 2
        // Byte 2i + 1 moves to i: every source lies ahead of every slot written before it.
        for index in 0..<kept {
            mac[index] = mac[2 * index + 1]
        }
        mac.removeLast(mac.count - kept)
        return mac
    }
}
