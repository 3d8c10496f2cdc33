/// File access rights (2 bytes, little-endian): Read, Write, Read&Write and ChangeAccessRights
/// nibbles; 0x0…0xD a key number, 0xE free access, 0xF never.
struct DESFireAccessRights: Codable, Sendable, Hashable {
    var raw: UInt16

    static let free: UInt8 = 0xE
    static let never: UInt8 = 0xF

    var read: UInt8 { UInt8(raw >> 12) }
    var write: UInt8 { UInt8((raw >> 8) & 0x0F) }
    var readWrite: UInt8 { UInt8((raw >> 4) & 0x0F) }
    var change: UInt8 { UInt8(raw & 0x0F) }

    /// Little-endian wire form.
    var bytes: [UInt8] { [UInt8(raw & 0xFF), UInt8(raw >> 8)] }
}

/// How a file command was granted, which decides its communication mode (spec §4.6).
enum DESFireAccessGrant: Sendable, Hashable {
    /// A free (0xE) right granted it: the exchange is plain whatever the file's comm setting.
    case free
    /// The authenticated key granted it: the file's comm setting applies.
    case key
}
