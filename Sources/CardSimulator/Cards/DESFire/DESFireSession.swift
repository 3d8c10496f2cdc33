import CardCrypto

/// An authenticated session (volatile): which key opened it, how, and the secure-messaging state.
struct DESFireSession: Sendable {
    /// Legacy D40 messaging after 0x0A; EV1 messaging (CMAC, IV chaining, CRC32) after 0x1A / 0xAA.
    enum Mode: Sendable, Hashable { case legacy, ev1 }

    var mode: Mode
    var keyNumber: UInt8
    /// Block cipher keyed with the session key.
    var cipher: any BlockCipher
    /// EV1: the running IV, advanced by every command and response; legacy: unused (always zero).
    var iv: [UInt8]

    var blockSize: Int { cipher.blockSize }
    var zeroIV: [UInt8] { [UInt8](repeating: 0, count: blockSize) }
}

/// A three-pass authentication between its first and second frame (volatile).
struct DESFirePendingAuthentication: Sendable {
    var command: UInt8
    var keyNumber: UInt8
    var key: DESFireKeyEntry
    var rndB: [UInt8]
    /// ISO / AES: the CBC chain value after the card's first cryptogram.
    var iv: [UInt8]
}

/// Uncommitted changes of backup, value and record files of the selected application (volatile).
struct DESFireTransaction: Sendable, Hashable {
    /// Pending value-file operations of one file.
    struct ValueChange: Sendable, Hashable {
        var credit: Int64 = 0
        var debit: Int64 = 0
        var limitedCredit: Int64 = 0
        var net: Int64 { credit + limitedCredit - debit }
    }

    /// Backup files: the working copy.
    var backupData: [UInt8: [UInt8]] = [:]
    var valueChanges: [UInt8: ValueChange] = [:]
    /// Record files: the record being written in this transaction.
    var newRecords: [UInt8: [UInt8]] = [:]
    var clearedRecordFiles: Set<UInt8> = []

    var isEmpty: Bool { backupData.isEmpty && valueChanges.isEmpty && newRecords.isEmpty && clearedRecordFiles.isEmpty }
}
