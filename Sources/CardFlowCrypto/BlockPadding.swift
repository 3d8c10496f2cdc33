/// Padding schemes DESFire uses before block encryption.
public enum BlockPadding {
    /// ISO/IEC 9797-1 padding method 2: append `0x80`, then `0x00` up to a multiple of `blockSize`.
    /// Always adds at least one byte (a whole block when `data` is already aligned).
    public static func iso9797Method2(_ data: [UInt8], blockSize: Int) -> [UInt8] {
        var padded = data + [0x80]
        let remainder = padded.count % blockSize
        if remainder != 0 {
            padded += [UInt8](repeating: 0, count: blockSize - remainder)
        }
        return padded
    }

    /// Removes ISO/IEC 9797-1 method 2 padding: trailing `0x00` bytes and the `0x80` before them.
    /// Returns `nil` when no `0x80` marker ends the data.
    public static func removingISO9797Method2(_ data: [UInt8]) -> [UInt8]? {
        guard let marker = data.lastIndex(where: { $0 != 0 }), data[marker] == 0x80 else { return nil }
        return Array(data[..<marker])
    }

    /// Zero padding: append `0x00` up to a multiple of `blockSize`; aligned data (including empty data)
    /// is returned unchanged. Used for DESFire enciphered data (after the CRC) and the legacy MAC.
    public static func zeroPadded(_ data: [UInt8], blockSize: Int) -> [UInt8] {
        let remainder = data.count % blockSize
        guard remainder != 0 else { return data }
        return data + [UInt8](repeating: 0, count: blockSize - remainder)
    }
}
