import CardFlow

/// The memory configuration block of FeliCa Lite / Lite-S (block `88`, MC), as the FeliCa Lite-S
/// user's manual lays it out (nfcpy's `tt3_sony.py` reads and writes the same bytes):
///
/// | bytes | field | meaning |
/// |---|---|---|
/// | 0–1 | MC_SP_REG_ALL_RW | little endian, bit n: S_PAD n (n = 0…13) and REG (bit 14) writable |
/// | 2 | MC_ALL | `FF`: the system blocks (ID, CKV, CK, MC) are writable; `00`: frozen for good |
/// | 3 | MC_SYS_OP | bit 0: NDEF supported (the card answers Polling for system code `12FC`) |
/// | 6–7 | MC_SP_REG_R_RESTR | (Lite-S) bit n: reading S_PAD n needs authentication |
/// | 8–9 | MC_SP_REG_W_RESTR | (Lite-S) bit n: writing S_PAD n needs authentication |
/// | 10–11 | MC_SP_REG_W_MAC_A | (Lite-S) bit n: writing S_PAD n needs a MAC |
public struct FeliCaLiteMemoryConfiguration: Sendable, Hashable {
    /// The block number of MC.
    public static let block = 0x88

    /// The 16 bytes of the block.
    public var bytes: [UInt8]

    /// Reads the block's 16 bytes.
    ///
    /// - Throws: ``StorageCardError/wrongBlockLength(block:length:)`` for another length.
    public init(bytes: [UInt8]) throws(StorageCardError) {
        guard bytes.count == 16 else { throw .wrongBlockLength(block: Self.block, length: bytes.count) }
        self.bytes = bytes
    }

    /// Bit n: S_PAD n (REG for 14) is writable.
    public var writableBlocks: UInt16 { UInt16(bytes[0]) | UInt16(bytes[1]) << 8 }

    /// Whether the system blocks (MC itself among them) can still be written.
    public var systemBlocksWritable: Bool { bytes[2] == 0xFF }

    /// Whether NDEF is on (MC_SYS_OP bit 0).
    public var ndefEnabled: Bool {
        get { bytes[3] & 0x01 != 0 }
        set { bytes[3] = newValue ? bytes[3] | 0x01 : bytes[3] & 0xFE }
    }

    /// Bit n: reading S_PAD n needs authentication.
    public var readRestrictedBlocks: UInt16 { UInt16(bytes[6]) | UInt16(bytes[7]) << 8 }

    /// Whether the user block `block` (S_PAD 0…13, REG 14) can be written without a MAC.
    public func isWritable(block: Int) -> Bool {
        guard (0...14).contains(block) else { return false }
        let writeWithMAC = UInt16(bytes[10]) | UInt16(bytes[11]) << 8
        return writableBlocks >> block & 1 == 1 && writeWithMAC >> block & 1 == 0
    }

    /// How many user blocks from S_PAD 1 on are writable in a row: the NDEF data area a format
    /// can declare (NmaxB), at most 13.
    public var consecutiveWritableBlocksAfterAttributeBlock: Int {
        var count = 0
        while count < 13 && isWritable(block: count + 1) { count += 1 }
        return count
    }
}
