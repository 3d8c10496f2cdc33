import CardFlowCrypto

/// An authenticated session (volatile): which key opened it, how, and the secure-messaging state.
struct DESFireSession: Sendable {
    /// Legacy D40 messaging after 0x0A; EV1 messaging (CMAC, IV chaining, CRC32) after 0x1A / 0xAA;
    /// EV2 messaging (TI, CmdCtr, truncated MACs, IV per command) after 0x71 / 0x77.
    enum Mode: Sendable, Hashable { case legacy, ev1, ev2 }

    var mode: Mode
    var keyNumber: UInt8
    /// Block cipher keyed with the session key.
    var cipher: any BlockCipher
    /// EV1: the running IV, advanced by every command and response; legacy: unused (always zero).
    var iv: [UInt8]
    /// EV2: the session keys, TI and command counter; `nil` in legacy and EV1 sessions.
    var ev2: EV2CardSession?

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
    /// AuthenticateEV2First: the PCDcap2 the reader announced.
    var pcdCapabilities: [UInt8] = []
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
    /// TMI, the Transaction MAC Input of the selected application's TransactionMAC file; empty
    /// until a data command of the transaction adds to it.
    var transactionMACInput: [UInt8] = []

    var isEmpty: Bool { backupData.isEmpty && valueChanges.isEmpty && newRecords.isEmpty && clearedRecordFiles.isEmpty }
}
