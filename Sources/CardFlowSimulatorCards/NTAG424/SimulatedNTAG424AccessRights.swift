/// The four access conditions of an NTAG 424 DNA file (NT4H2421Gx §8.2.3.3): each a key number
/// 0–4, `0xE` (free access) or `0xF` (no access).
///
/// On the wire the two bytes are `ReadWrite‖Change` then `Read‖Write` (AN12196 writes the
/// factory NDEF file's rights as `E0 EE`: read, write and read-write free, change with key 0).
public struct SimulatedNTAG424AccessRights: Hashable, Codable, Sendable {
    /// ReadData / ISOReadBinary.
    public var read: UInt8
    /// WriteData / ISOUpdateBinary.
    public var write: UInt8
    /// Both reading and writing.
    public var readWrite: UInt8
    /// ChangeFileSettings.
    public var change: UInt8

    /// Access rights from four nibbles (0–4 a key, `0xE` free, `0xF` never).
    public init(read: UInt8, write: UInt8, readWrite: UInt8, change: UInt8) {
        self.read = read & 0x0F
        self.write = write & 0x0F
        self.readWrite = readWrite & 0x0F
        self.change = change & 0x0F
    }

    /// Decodes the two wire bytes (`ReadWrite‖Change`, `Read‖Write`).
    public init(wire first: UInt8, _ second: UInt8) {
        self.init(read: second >> 4, write: second & 0x0F, readWrite: first >> 4, change: first & 0x0F)
    }

    /// The two wire bytes.
    public var wireBytes: [UInt8] { [readWrite << 4 | change, read << 4 | write] }

    /// Whether every nibble is a key 0–4, `E` or `F`.
    var isValid: Bool { [read, write, readWrite, change].allSatisfy(Self.isValidCondition) }

    static func isValidCondition(_ nibble: UInt8) -> Bool { nibble <= 4 || nibble == 0xE || nibble == 0xF }

    static let free: UInt8 = 0xE
    static let never: UInt8 = 0xF
}
