import CardFlow

/// A file's access rights: four key nibbles (0x0–0xD key number, 0xE free, 0xF never).
///
/// ```swift
/// let onlyKey0 = DESFireAccessRights(read: 0, write: 0, readWrite: 0, change: 0)
/// DESFireAccessRights(rawValue: 0xEEEE)      // everything free
/// ```
public struct DESFireAccessRights: Hashable, Sendable, CustomStringConvertible {
    /// Free access nibble.
    public static let free: UInt8 = 0xE
    /// Never nibble.
    public static let never: UInt8 = 0xF

    public var read: UInt8
    public var write: UInt8
    public var readWrite: UInt8
    public var change: UInt8

    public init(read: UInt8, write: UInt8, readWrite: UInt8, change: UInt8) {
        self.read = read & 0xF
        self.write = write & 0xF
        self.readWrite = readWrite & 0xF
        self.change = change & 0xF
    }

    /// From the 16-bit value `Read<<12 | Write<<8 | RW<<4 | Change`.
    public init(rawValue: UInt16) {
        self.init(
            read: UInt8(truncatingIfNeeded: rawValue >> 12 & 0xF),
            write: UInt8(truncatingIfNeeded: rawValue >> 8 & 0xF),
            readWrite: UInt8(truncatingIfNeeded: rawValue >> 4 & 0xF), change: UInt8(truncatingIfNeeded: rawValue & 0xF)
        )
    }

    public var rawValue: UInt16 {
        UInt16(read) << 12 | UInt16(write) << 8 | UInt16(readWrite) << 4 | UInt16(change)
    }

    /// The 2 wire bytes (little-endian).
    var wire: [UInt8] { [UInt8(truncatingIfNeeded: rawValue), UInt8(truncatingIfNeeded: rawValue >> 8)] }

    /// For example `"R0 W0 RW0 C0"` (`E` free, `F` never).
    public var description: String {
        func nibble(_ value: UInt8) -> String { String(value, radix: 16, uppercase: true) }
        return "R\(nibble(read)) W\(nibble(write)) RW\(nibble(readWrite)) C\(nibble(change))"
    }
}
