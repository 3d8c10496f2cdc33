/// The key version DESFire stores in the parity bits (bit 0) of a DES-family key.
///
/// The version is read MSB-first from bit 0 of key bytes 0…7: `Σ (key[n] & 1) << (7 − n)`.
/// The cipher ignores these bits, so changing the version does not change the key's behaviour.
public enum DESKeyVersion {
    /// How bytes 8…15 are updated when a version is written.
    public enum SecondHalf: Sendable {
        /// DES key stored as 16 bytes `K‖K`: bytes 8…15 become a copy of bytes 0…7 (halves stay equal).
        case copyFirstHalf
        /// 2K3DES / 3K3DES: bit 0 of bytes 8…15 receives the inverted version bits, so the key never
        /// degenerates into a DES key with equal halves (libfreefare, proxmark3).
        case invertedVersionBits
        /// Leave bytes 8…15 untouched (an 8-byte key has none).
        case unchanged
    }

    /// The version carried by bit 0 of `key[0...7]`; keys shorter than 8 bytes read as if padded with zeros.
    public static func version(of key: [UInt8]) -> UInt8 {
        var version: UInt8 = 0
        for (index, byte) in key.prefix(8).enumerated() {
            version |= (byte & 1) << (7 - index)
        }
        return version
    }

    /// Returns `key` with `version` written into bit 0 of bytes 0…7 and bytes 8…15 updated per `secondHalf`.
    public static func setting(_ version: UInt8, in key: [UInt8], secondHalf: SecondHalf) -> [UInt8] {
        var result = key
        for index in 0..<min(8, key.count) {
            let bit = (version >> (7 - index)) & 1
            result[index] = (result[index] & 0xFE) | bit
            guard index + 8 < key.count else { continue }
            switch secondHalf {
            case .copyFirstHalf: result[index + 8] = result[index]
            case .invertedVersionBits: result[index + 8] = (result[index + 8] & 0xFE) | (bit ^ 1)
            case .unchanged: break
            }
        }
        return result
    }
}
