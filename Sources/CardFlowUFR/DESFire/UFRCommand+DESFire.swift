import CardFlow

/// The uFR DESFire commands, in which the reader itself selects the application, authenticates
/// and runs the DESFire command (ufr.md §4). Each starts its CMD_EXT with the key block: key
/// source (1 = reader slot, 0 = provided), slot, a 16-byte key field, and for most the
/// application ID little-endian. Par0 carries the key type in its high nibble.
///
/// Where the documents contradict themselves the layout follows the field tables and the
/// length rule of ufr.md §2.1 (the EXT length byte counts data and checksum): the COM document's
/// printed CMD packets for 0x83, 0x82 and 0x86 are one byte short of their own examples.
///
/// ```swift
/// let read = try UFRCommand.desfireRead(
///     application: 0xF0_0001, key: .readerSlot(3), keyNumber: 0, file: 1, offset: 0, length: 32,
///     communication: .enciphered)
/// ```
extension UFRCommand {
    /// The most data one DESFIRE_WRITE_TO_STD_FILE carries in its first (only) part (ufr.md §2.3).
    public static let maximumDESFireWritePart = 160

    /// DESFIRE_FREE_MEM (0x8D): no key, no CMD_EXT.
    public static func desfireFreeMemory() throws(UFRDESFireError) -> UFRCommand {
        try make(.desfireFreeMemory, parameter0: 0, [])
    }

    /// DESFIRE_FORMAT_CARD (0x8C): authenticates with the PICC master key `piccKey`, then formats.
    public static func desfireFormat(piccKey: UFRDESFireKey) throws(UFRDESFireError) -> UFRCommand {
        try make(.desfireFormatCard, parameter0: piccKey.type.rawValue << 4, keyBlock(piccKey, application: nil))
    }

    /// DESFIRE_CREATE_APPLICATION (0x84).
    ///
    /// - Parameters:
    ///   - application: the new application's ID (0x000001–0xFFFFFF).
    ///   - settings: the key settings byte.
    ///   - keyCount: the application's number of keys, 1–14.
    ///   - keyType: the application keys' type (3K3DES 1, DES and 2K3DES 2, AES 0).
    ///   - piccKey: the PICC master key to authenticate with first, nil for none.
    public static func desfireCreateApplication(
        _ application: UInt32, settings: UInt8, keyCount: Int, keyType: UFRDESFireKeyType = .aes,
        piccKey: UFRDESFireKey?
    ) throws(UFRDESFireError) -> UFRCommand {
        guard application != 0 else { throw .invalidArgument("application 000000 is the PICC level") }
        guard (1...14).contains(keyCount) else {
            throw .invalidArgument("an application has 1–14 keys, not \(keyCount)")
        }
        let applicationType: UInt8 =
            switch keyType {
            case .aes: 0
            case .threeKeyTripleDES: 1
            case .des, .twoKeyTripleDES: 2
            }
        let parameter0 = applicationType | (piccKey?.type ?? .aes).rawValue << 4
        // keyCount is 1...14 (checked above).
        let fields: [UInt8] = [piccKey == nil ? 0 : 1, settings, UInt8(keyCount)]
        return try make(
            .desfireCreateApplication, parameter0: parameter0, keyBlock(piccKey, application: application) + fields)
    }

    /// DESFIRE_CREATE_STD_FILE (0x85).
    ///
    /// - Parameters:
    ///   - application: the application the file goes in.
    ///   - file: the file number, 0–31.
    ///   - size: the file size in bytes.
    ///   - accessRights: the DESFire access rights, read << 12 | write << 8 | read&write << 4 | change.
    ///   - communication: the file's communication settings.
    ///   - applicationKey: the application master key (key 0) to authenticate with, nil for none.
    public static func desfireCreateStandardFile(
        application: UInt32, file: UInt8, size: UInt32, accessRights: UInt16,
        communication: UFRDESFireCommunication, applicationKey: UFRDESFireKey?
    ) throws(UFRDESFireError) -> UFRCommand {
        guard file <= 31 else { throw .invalidArgument("file \(file) is not in 0–31") }
        let fields: [UInt8] =
            [
                file, UInt8(truncatingIfNeeded: accessRights), UInt8(truncatingIfNeeded: accessRights >> 8),
            ] + littleEndian(size, count: 4) + [applicationKey == nil ? 0 : 1, communication.rawValue]
        return try make(
            .desfireCreateStandardFile, parameter0: (applicationKey?.type ?? .aes).rawValue << 4,
            keyBlock(applicationKey, application: application) + fields)
    }

    /// DESFIRE_READ_FROM_STD_FILE (0x83): the data come streamed before the RSP
    /// (``UFRConnection/executeCollectingStreamedData(_:timeout:)``).
    ///
    /// - Parameters:
    ///   - application: the application.
    ///   - key: the key to authenticate with, nil for a file free to read.
    ///   - keyNumber: the application key number `key` is.
    ///   - file: the file number, 0–31.
    ///   - offset: where to start.
    ///   - length: how many bytes.
    ///   - communication: the file's communication settings.
    public static func desfireRead(
        application: UInt32, key: UFRDESFireKey?, keyNumber: UInt8, file: UInt8, offset: UInt16, length: UInt16,
        communication: UFRDESFireCommunication
    ) throws(UFRDESFireError) -> UFRCommand {
        try make(
            .desfireReadStandardFile, parameter0: (key?.type ?? .aes).rawValue << 4,
            try fileAccess(application, key, keyNumber, file, offset, length, communication))
    }

    /// DESFIRE_WRITE_TO_STD_FILE (0x82) with at most ``maximumDESFireWritePart`` bytes (one part;
    /// ``UFRDESFire/write(_:application:file:offset:communication:key:keyNumber:)`` splits longer data).
    public static func desfireWrite(
        _ data: [UInt8], application: UInt32, key: UFRDESFireKey?, keyNumber: UInt8, file: UInt8, offset: UInt16,
        communication: UFRDESFireCommunication
    ) throws(UFRDESFireError) -> UFRCommand {
        guard !data.isEmpty, data.count <= maximumDESFireWritePart else {
            throw .invalidArgument("one write carries 1–\(maximumDESFireWritePart) bytes, not \(data.count)")
        }
        // At most 160 (checked above).
        let fields = try fileAccess(application, key, keyNumber, file, offset, UInt16(data.count), communication)
        return try make(.desfireWriteStandardFile, parameter0: (key?.type ?? .aes).rawValue << 4, fields + data)
    }

    /// DESFIRE_CHANGE_AES_KEY (0x86): authenticates with `authenticationKey` (key number
    /// `authenticationKeyNumber` of `application`) and changes key `keyNumber` to `newKey`.
    ///
    /// `oldKey` is the current value of the key changed, needed (natively) only when it is not
    /// the key authenticated with. Application 000000 with key numbers 0 changes the PICC master
    /// key; with a DES key to authenticate with and an AES new key this is the DES → AES master
    /// key change, whose frame the documents do not give (ufr.md §4: inferred from this command's
    /// Par0 = authentication type | new type << 2).
    public static func desfireChangeKey(
        application: UInt32, authenticationKey: UFRDESFireKey, authenticationKeyNumber: UInt8, newKey: UFRDESFireKey,
        keyNumber: UInt8, oldKey: UFRDESFireKey?
    ) throws(UFRDESFireError) -> UFRCommand {
        let fromSlot = { (key: UFRDESFireKey?) -> UInt8 in key?.slot == nil ? 0 : 1 }
        let flags =
            fromSlot(authenticationKey) | fromSlot(newKey) << 1 | fromSlot(oldKey) << 2 | (oldKey?.slot ?? 0) << 4
        let slots = (authenticationKey.slot ?? 0) | (newKey.slot ?? 0) << 4
        let zeros = [UInt8](repeating: 0, count: 16)
        let fields: [UInt8] =
            [flags, slots] + authenticationKey.keyField + (try applicationID(application))
            + [authenticationKeyNumber] + newKey.keyField + [keyNumber] + (oldKey?.keyField ?? zeros)
        return try make(
            .desfireChangeKey, parameter0: authenticationKey.type.rawValue | newKey.type.rawValue << 2, fields)
    }

    /// DESFIRE_WRITE_AES_KEY (0x8E): stores `key` in reader key slot `slot` (0–15). The reader
    /// never gives it back.
    public static func desfireWriteReaderKey(slot: Int, key: [UInt8], type: UFRDESFireKeyType = .aes)
        throws(UFRDESFireError) -> UFRCommand
    {
        guard UFRDESFireKey.readerSlots.contains(slot) else {
            throw .invalidArgument("reader key slot \(slot) is not in 0–15")
        }
        guard type != .threeKeyTripleDES, key.count == type.keyLength else {
            throw .invalidArgument("a \(type) reader key has \(type.keyLength) bytes, not \(key.count)")
        }
        // 0...15 (checked above).
        return try make(.desfireWriteReaderKey, parameter0: type.rawValue, [UInt8(slot)] + key)
    }

    // MARK: layout

    /// Key source, slot, the 16-byte key field, then the application ID when the command takes one.
    static func keyBlock(_ key: UFRDESFireKey?, application: UInt32?) throws(UFRDESFireError) -> [UInt8] {
        let head: [UInt8] = [key?.slot == nil ? 0 : 1, key?.slot ?? 0]
        let field = key?.keyField ?? [UInt8](repeating: 0, count: 16)
        guard let application else { return head + field }
        return head + field + (try applicationID(application))
    }

    /// The fields of 0x83 and 0x82 up to the communication settings.
    private static func fileAccess(
        _ application: UInt32, _ key: UFRDESFireKey?, _ keyNumber: UInt8, _ file: UInt8, _ offset: UInt16,
        _ length: UInt16, _ communication: UFRDESFireCommunication
    ) throws(UFRDESFireError) -> [UInt8] {
        guard file <= 31 else { throw .invalidArgument("file \(file) is not in 0–31") }
        return try keyBlock(key, application: application) + [keyNumber, file, key == nil ? 0 : 1]
            + littleEndian(UInt32(offset), count: 2) + littleEndian(UInt32(length), count: 2) + [communication.rawValue]
    }

    private static func applicationID(_ application: UInt32) throws(UFRDESFireError) -> [UInt8] {
        guard application <= 0xFF_FFFF else { throw .invalidArgument("application ID above FFFFFF") }
        return littleEndian(application, count: 3)
    }

    private static func littleEndian(_ value: UInt32, count: Int) -> [UInt8] {
        (0..<count).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) }
    }

    private static func make(_ code: UFRCommandCode, parameter0: UInt8, _ data: [UInt8]) throws(UFRDESFireError)
        -> UFRCommand
    {
        do {
            return try UFRCommand(code, parameter0: parameter0, extensionData: data)
        } catch {
            throw .invalidArgument("\(error)")
        }
    }
}
