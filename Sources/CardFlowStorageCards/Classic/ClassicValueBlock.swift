/// A MIFARE Classic value block (NXP MF1S50 datasheet §8.6.2.1): a signed 4-byte value stored
/// three times — plain, inverted, plain, least significant byte first — and an address byte
/// stored four times — plain, inverted, plain, inverted.
///
/// ```swift
/// let block = ClassicValueBlock(value: 100, address: 5).bytes
/// // 64 00 00 00 9B FF FF FF 64 00 00 00 05 FA 05 FA
/// ```
public struct ClassicValueBlock: Sendable, Hashable {
    /// The value.
    public var value: Int32
    /// The address byte, free for the application (often the block's own number, to find a
    /// backup block).
    public var address: UInt8

    public init(value: Int32, address: UInt8) {
        self.value = value
        self.address = address
    }

    /// Decodes a 16-byte block.
    ///
    /// - Throws: ``StorageCardError/notAValueBlock(block:)`` (block -1) when the copies disagree
    ///   or the block is not 16 bytes: a card refuses value operations on such a block.
    public init(bytes: [UInt8]) throws(StorageCardError) {
        guard bytes.count == 16 else { throw .notAValueBlock(block: -1) }
        let plain = Array(bytes[0..<4])
        let inverted = Array(bytes[4..<8])
        let copy = Array(bytes[8..<12])
        guard plain == copy, zip(plain, inverted).allSatisfy({ $0 == ~$1 }),
            bytes[12] == bytes[14], bytes[13] == bytes[15], bytes[12] == ~bytes[13]
        else { throw .notAValueBlock(block: -1) }
        value = Int32(bitPattern: plain.enumerated().reduce(UInt32(0)) { $0 | UInt32($1.element) << (8 * $1.offset) })
        address = bytes[12]
    }

    /// The 16 bytes to write.
    public var bytes: [UInt8] {
        let raw = UInt32(bitPattern: value)
        let plain = (0..<4).map { UInt8(truncatingIfNeeded: raw >> (8 * $0)) }
        return plain + plain.map { ~$0 } + plain + [address, ~address, address, ~address]
    }
}
