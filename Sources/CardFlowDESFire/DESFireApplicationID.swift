import CardFlow

/// A 3-byte DESFire application identifier (0x000000 is the PICC level). Sent little-endian.
///
/// ```swift
/// let aid = try DESFireApplicationID(hex: "010203")   // value 0x010203, wire 03 02 01
/// ```
public struct DESFireApplicationID: Hashable, Sendable, CustomStringConvertible {
    /// The value, 0...0xFFFFFF.
    public let value: UInt32

    /// The PICC level.
    public static let picc = DESFireApplicationID(validated: 0)

    public init(_ value: UInt32) throws(DESFireError) {
        guard value <= 0xFF_FFFF else { throw .invalidArgument("an application ID has 3 bytes: \(value) is too big") }
        self.value = value
    }

    init(validated value: UInt32) { self.value = value }

    /// From 6 hex digits, most significant first (`"010203"` is 0x010203).
    public init(hex: String) throws(DESFireError) {
        let digits = hex.filter { !$0.isWhitespace }
        guard digits.count == 6, let value = UInt32(digits, radix: 16) else {
            throw .invalidArgument("an application ID is 6 hex digits, not '\(hex)'")
        }
        self.value = value
    }

    /// From the 3 wire bytes (little-endian).
    init(wire bytes: ArraySlice<UInt8>) {
        let start = bytes.startIndex
        value = UInt32(bytes[start]) | UInt32(bytes[start + 1]) << 8 | UInt32(bytes[start + 2]) << 16
    }

    /// The 3 bytes on the wire, least significant first.
    public var wire: [UInt8] { littleEndian(value, count: 3) }

    /// 6 hex digits, most significant first.
    public var description: String {
        let text = String(value, radix: 16, uppercase: true)
        return String(repeating: "0", count: 6 - text.count) + text
    }
}

/// `value` as `count` little-endian bytes.
func littleEndian(_ value: UInt32, count: Int) -> [UInt8] {
    (0..<count).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) }
}

/// Reads a little-endian unsigned integer of `bytes.count` bytes.
func littleEndianValue(_ bytes: ArraySlice<UInt8>) -> UInt32 {
    bytes.reversed().reduce(0) { $0 << 8 | UInt32($1) }
}
