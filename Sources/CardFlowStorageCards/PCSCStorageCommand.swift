import CardFlow

/// The PC/SC part 3 storage-card pseudo-APDUs (class `FF`), byte for byte, and the ACS value-block
/// commands. Reader-family choices (what LOAD KEYS' P2 means) are in ``StorageReaderVariant``'s
/// ``StorageReaderVariant/loadKeys(_:keyType:slot:nonVolatile:)`` and
/// ``StorageReaderVariant/authenticate(block:keyType:slot:)``.
///
/// ```swift
/// let read = try PCSCStorageCommand.readBinary(block: 4)   // FF B0 00 04 10
/// ```
public enum PCSCStorageCommand {
    /// ACS value-block operations (`FF D7 … 05 op value`).
    public enum ValueOperation: UInt8, Sendable, Hashable {
        /// Write the value as a value block.
        case store = 0x00
        case increment = 0x01
        case decrement = 0x02
    }

    /// GET DATA, UID: `FF CA 00 00 00`.
    public static func getUID() throws(StorageCardError) -> CommandAPDU {
        try make(ins: 0xCA, p1: 0x00, p2: 0x00, le: 256)
    }

    /// GET DATA, the ATS historical bytes: `FF CA 01 00 00`.
    public static func getATSHistoricalBytes() throws(StorageCardError) -> CommandAPDU {
        try make(ins: 0xCA, p1: 0x01, p2: 0x00, le: 256)
    }

    /// LOAD KEYS: `FF 82 P1 P2 06 KEY`; P1 is the key structure (bit 5: non-volatile), P2 the key
    /// slot, or on Identiv/SCM readers the key type.
    public static func loadKeys(_ key: ClassicKey, keyStructure: UInt8, p2: UInt8) throws(StorageCardError)
        -> CommandAPDU
    {
        try make(ins: 0x82, p1: keyStructure, p2: p2, data: key.bytes)
    }

    /// GENERAL AUTHENTICATE (PC/SC part 3 v2.07): `FF 86 00 00 05 01 MSB LSB KT KN`.
    public static func generalAuthenticate(block: Int, keyType: ClassicKeyType, keyNumber: UInt8)
        throws(StorageCardError) -> CommandAPDU
    {
        let address = try blockAddress(block)
        return try make(ins: 0x86, p1: 0x00, p2: 0x00, data: [0x01] + address + [keyType.rawValue, keyNumber])
    }

    /// The obsolete AUTHENTICATE of PC/SC part 3 v2.01: `FF 88 00 BLK KT KN`, six bytes where the
    /// key type stands in the Lc position (ACR122U API: "P3 key type, data in key number"). It is
    /// no ISO 7816 APDU, so it comes as bytes, for readers' raw transmit paths; prefer
    /// ``generalAuthenticate(block:keyType:keyNumber:)``.
    public static func obsoleteAuthenticate(block: Int, keyType: ClassicKeyType, keyNumber: UInt8)
        throws(StorageCardError) -> [UInt8]
    {
        guard (0...255).contains(block) else { throw .invalidArgument("block \(block) does not fit one byte") }
        return [0xFF, 0x88, 0x00, UInt8(block), keyType.rawValue, keyNumber]
    }

    /// READ BINARY: `FF B0 MSB LSB Le` (16 bytes for one MIFARE Classic block).
    public static func readBinary(block: Int, length: Int = 16) throws(StorageCardError) -> CommandAPDU {
        let address = try blockAddress(block)
        guard (1...256).contains(length) else { throw .invalidArgument("READ BINARY length \(length) is not 1…256") }
        return try make(ins: 0xB0, p1: address[0], p2: address[1], le: length)
    }

    /// UPDATE BINARY: `FF D6 MSB LSB Lc DATA`.
    public static func updateBinary(block: Int, data: [UInt8]) throws(StorageCardError) -> CommandAPDU {
        let address = try blockAddress(block)
        guard (1...255).contains(data.count) else {
            throw .invalidArgument("UPDATE BINARY data of \(data.count) bytes is not 1…255")
        }
        return try make(ins: 0xD6, p1: address[0], p2: address[1], data: data)
    }

    /// ACS value-block operation: `FF D7 00 BLK 05 OP VALUE` with the value most significant
    /// byte first.
    public static func valueOperation(_ operation: ValueOperation, block: Int, value: Int32) throws(StorageCardError)
        -> CommandAPDU
    {
        guard (0...255).contains(block) else { throw .invalidArgument("block \(block) does not fit one byte") }
        let raw = UInt32(bitPattern: value)
        let bigEndian = [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: raw >> UInt32($0)) }
        return try make(ins: 0xD7, p1: 0x00, p2: UInt8(block), data: [operation.rawValue] + bigEndian)
    }

    /// PC/SC part 3 increment or decrement (2.02 amendment 1 §3.2.2.1.10; Identiv's uTrust and
    /// CLOUD reference manuals, `PAPDU_MIFARE_VALUE_BLK_NEW`): `FF C2 00 03 Lc`, the action
    /// object `A0` (increment) or `A1` (decrement) holding the destination `80 01 BLK` and the
    /// amount `81 04 VALUE`, least significant byte first, then `Le 00`. The reader transfers the
    /// result to the same block. Identiv's example, block 5 up by 100:
    /// `FF C2 00 03 0B A0 09 80 01 05 81 04 64 00 00 00 00`.
    ///
    /// - Throws: ``StorageCardError/invalidArgument(_:)`` for ``ValueOperation/store``, a
    ///   negative amount or a block over 255.
    public static func part3ValueOperation(_ operation: ValueOperation, block: Int, amount: Int32)
        throws(StorageCardError) -> CommandAPDU
    {
        guard operation != .store else { throw .invalidArgument("PC/SC part 3 has no store value operation") }
        guard amount >= 0 else { throw .invalidArgument("value amounts are not negative: \(amount)") }
        guard let blockNumber = UInt8(exactly: block) else {
            throw .invalidArgument("block \(block) does not fit one byte")
        }
        let raw = UInt32(bitPattern: amount)
        let littleEndian = [0, 8, 16, 24].map { UInt8(truncatingIfNeeded: raw >> UInt32($0)) }
        // The action object always holds 9 bytes: destination (3) and amount (6).
        let objects: [UInt8] = [0x80, 0x01, blockNumber, 0x81, 0x04] + littleEndian
        let action: UInt8 = operation == .increment ? 0xA0 : 0xA1
        return try make(ins: 0xC2, p1: 0x00, p2: 0x03, data: [action, 0x09] + objects, le: 256)
    }

    /// ACS restore value: copies a value block to another in the same sector, `FF D7 00 SRC 02 03 DST`.
    public static func restoreValue(from source: Int, to target: Int) throws(StorageCardError) -> CommandAPDU {
        guard (0...255).contains(source), (0...255).contains(target) else {
            throw .invalidArgument("blocks \(source), \(target) do not fit one byte")
        }
        return try make(ins: 0xD7, p1: 0x00, p2: UInt8(source), data: [0x03, UInt8(target)])
    }

    /// ACS read value: `FF B1 00 BLK 04`, answered with the value most significant byte first.
    public static func readValue(block: Int) throws(StorageCardError) -> CommandAPDU {
        guard (0...255).contains(block) else { throw .invalidArgument("block \(block) does not fit one byte") }
        return try make(ins: 0xB1, p1: 0x00, p2: UInt8(block), le: 4)
    }

    private static func blockAddress(_ block: Int) throws(StorageCardError) -> [UInt8] {
        guard let address = UInt16(exactly: block) else {
            throw .invalidArgument("block \(block) does not fit two bytes")
        }
        return [UInt8(address >> 8), UInt8(truncatingIfNeeded: address)]
    }

    private static func make(ins: UInt8, p1: UInt8, p2: UInt8, data: [UInt8] = [], le: Int? = nil)
        throws(StorageCardError) -> CommandAPDU
    {
        do {
            return try CommandAPDU(cla: 0xFF, ins: ins, p1: p1, p2: p2, data: data, le: le)
        } catch {
            throw .invalidArgument("APDU INS \([ins].hexString): \(error)")
        }
    }
}

extension StorageReaderVariant {
    /// LOAD KEYS for `key` in this family's dialect.
    ///
    /// - Parameters:
    ///   - key: the key.
    ///   - keyType: key A or B (Identiv/SCM put it in P2; others ignore it here).
    ///   - slot: the reader key slot (ignored by Identiv/SCM).
    ///   - nonVolatile: keep the key across power-off (P1 `20`).
    /// - Throws: ``StorageCardError/unsupportedByReader(family:what:)`` for a slot or memory the
    ///   family does not have.
    public func loadKeys(_ key: ClassicKey, keyType: ClassicKeyType, slot: UInt8, nonVolatile: Bool)
        throws(StorageCardError) -> CommandAPDU
    {
        let slots = nonVolatile ? nonVolatileKeySlots : volatileKeySlots
        switch keyAddressing {
        case .keyType:
            guard !nonVolatile else {
                throw .unsupportedByReader(family: family, what: "load keys into non-volatile memory")
            }
            return try PCSCStorageCommand.loadKeys(key, keyStructure: 0x00, p2: keyType.rawValue)
        case .keySlot:
            guard let slots else {
                throw .unsupportedByReader(
                    family: family, what: "load keys into \(nonVolatile ? "non-volatile" : "volatile") memory")
            }
            guard slots.contains(slot) else {
                throw .unsupportedByReader(family: family, what: "use key slot \([slot].hexString) (slots \(slots))")
            }
            return try PCSCStorageCommand.loadKeys(key, keyStructure: nonVolatile ? 0x20 : 0x00, p2: slot)
        }
    }

    /// GENERAL AUTHENTICATE of `block` with the key loaded for `keyType` (Identiv/SCM) or in `slot`.
    public func authenticate(block: Int, keyType: ClassicKeyType, slot: UInt8) throws(StorageCardError) -> CommandAPDU {
        switch keyAddressing {
        case .keyType(let keyNumber):
            try PCSCStorageCommand.generalAuthenticate(block: block, keyType: keyType, keyNumber: keyNumber)
        case .keySlot:
            try PCSCStorageCommand.generalAuthenticate(block: block, keyType: keyType, keyNumber: slot)
        }
    }
}
