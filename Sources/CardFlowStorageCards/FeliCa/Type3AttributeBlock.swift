import CardFlow

/// The Attribute Information Block of an NFC Forum Type 3 tag (block 0 of the NDEF service),
/// as the NFC Forum Type 3 Tag Operation Specification lays it out (nfcpy's `tt3.py` reads and
/// writes the same layout):
///
/// | bytes | field |
/// |---|---|
/// | 0 | Ver (`10`: mapping version 1.0) |
/// | 1 | Nbr: blocks one read may take |
/// | 2 | Nbw: blocks one write may take |
/// | 3–4 | NmaxB: blocks of NDEF data the tag holds (big endian) |
/// | 5–8 | unused, `00` |
/// | 9 | WriteF: `00` done, `0F` a write is in progress |
/// | 10 | RWFlag: `00` read-only, `01` read/write |
/// | 11–13 | Ln: NDEF message length in bytes (big endian) |
/// | 14–15 | checksum: the sum of bytes 0–13 (big endian) |
///
/// A writer sets WriteF to `0F` before the data and back to `00` with the new Ln after it: a
/// tag lifted in between says so, and its message is not read as valid.
public struct Type3AttributeBlock: Sendable, Hashable {
    public var version: UInt8
    public var blocksPerRead: Int
    public var blocksPerWrite: Int
    public var maximumBlocks: Int
    /// WriteF is `0F`: a write began and did not finish.
    public var writeInProgress: Bool
    public var writable: Bool
    /// Ln, the NDEF message length.
    public var length: Int

    public init(
        version: UInt8 = 0x10, blocksPerRead: Int, blocksPerWrite: Int, maximumBlocks: Int,
        writeInProgress: Bool = false, writable: Bool = true, length: Int = 0
    ) {
        self.version = version
        self.blocksPerRead = blocksPerRead
        self.blocksPerWrite = blocksPerWrite
        self.maximumBlocks = maximumBlocks
        self.writeInProgress = writeInProgress
        self.writable = writable
        self.length = length
    }

    /// Reads block 0.
    ///
    /// - Throws: ``StorageCardError/malformedNDEF(_:)`` for a length other than 16, a blank
    ///   block (an unformatted tag), a checksum
    ///   that does not match, a major version other than 1, Nbr or Nbw of 0, a WriteF or
    ///   RWFlag outside its two values, or an Ln larger than NmaxB blocks.
    public init(bytes: [UInt8]) throws(StorageCardError) {
        guard bytes.count == 16 else {
            throw .malformedNDEF("a Type 3 attribute block has 16 bytes, not \(bytes.count)")
        }
        guard bytes.contains(where: { $0 != 0 }) else {
            throw .malformedNDEF("block 0 is blank: the tag is not NDEF formatted")
        }
        let sum = bytes[0..<14].reduce(0) { $0 + Int($1) }
        let checksum = Int(bytes[14]) << 8 | Int(bytes[15])
        guard sum == checksum else {
            throw .malformedNDEF("attribute block checksum \(checksum) is not the sum \(sum) (not NDEF formatted?)")
        }
        guard bytes[0] >> 4 == 1 else {
            throw .malformedNDEF("Type 3 mapping version \([bytes[0]].hexString) is not 1.x")
        }
        guard bytes[1] > 0, bytes[2] > 0 else {
            throw .malformedNDEF("the attribute block allows no read or write (Nbr/Nbw 0)")
        }
        guard bytes[9] == 0x00 || bytes[9] == 0x0F else { throw .malformedNDEF("WriteF \([bytes[9]].hexString)") }
        guard bytes[10] <= 0x01 else { throw .malformedNDEF("RWFlag \([bytes[10]].hexString)") }
        version = bytes[0]
        blocksPerRead = Int(bytes[1])
        blocksPerWrite = Int(bytes[2])
        maximumBlocks = Int(bytes[3]) << 8 | Int(bytes[4])
        writeInProgress = bytes[9] == 0x0F
        writable = bytes[10] == 0x01
        length = Int(bytes[11]) << 16 | Int(bytes[12]) << 8 | Int(bytes[13])
        guard length <= maximumBlocks * 16 else {
            throw .malformedNDEF("Ln \(length) is more than NmaxB \(maximumBlocks) blocks hold")
        }
    }

    /// The 16 bytes, checksum included.
    public func encoded() -> [UInt8] {
        var bytes: [UInt8] = [
            version, UInt8(clamping: blocksPerRead), UInt8(clamping: blocksPerWrite),
            UInt8(truncatingIfNeeded: maximumBlocks >> 8), UInt8(truncatingIfNeeded: maximumBlocks),
            0, 0, 0, 0, writeInProgress ? 0x0F : 0x00, writable ? 0x01 : 0x00,
            UInt8(truncatingIfNeeded: length >> 16), UInt8(truncatingIfNeeded: length >> 8),
            UInt8(truncatingIfNeeded: length),
        ]
        let sum = bytes.reduce(0) { $0 + Int($1) }
        bytes += [UInt8(truncatingIfNeeded: sum >> 8), UInt8(truncatingIfNeeded: sum)]
        return bytes
    }

    /// The NDEF capacity in bytes.
    public var capacity: Int { maximumBlocks * 16 }
}
