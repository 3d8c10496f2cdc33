import CardFlow

extension DESFireClient {
    /// CreateTransactionMACFile (`CE`, file type 05) in the selected application: `FileNo FileOption
    /// AR(2) TMKeyOption` in clear and `TMKey ‖ TMKeyVer` enciphered (CommMode.Full). Needs an EV2
    /// session with the application master key.
    ///
    /// From then on the client records the Transaction MAC Input of each transaction in this
    /// application, so that ``commitTransactionReturningMAC()`` returns a TMV one can verify.
    ///
    /// - Parameters:
    ///   - file: the file number.
    ///   - commMode: how the file reads (TMC ‖ TMV).
    ///   - accessRights: Read: who reads TMC ‖ TMV; Write: CommitReaderID (`F` disables it);
    ///     R/W: `F`; Change: ChangeFileSettings.
    ///   - key: the AppTransactionMACKey (AES) and its version.
    public func createTransactionMACFile(
        file: UInt8, commMode: DESFireCommMode, accessRights: DESFireAccessRights, key: DESFireKey
    ) async throws {
        guard session?.flavour == .ev2 else { throw DESFireError.notAuthenticated(command: .createTransactionMACFile) }
        guard key.type == .aes else {
            throw DESFireError.invalidArgument("the AppTransactionMACKey is AES, not \(key.type)")
        }
        fileSettingsCache[file] = nil
        _ = try await exchange(
            .createTransactionMACFile,
            header: [try fileNumber(file), commMode.rawValue] + accessRights.wire + [Self.transactionMACKeyOptionAES],
            data: key.bytes + [key.version], protection: .enciphered)
        recordTransactionMACs(file: file)
    }

    /// ReadData of the TransactionMAC file `file`: the TMC and TMV of the last MACed transaction.
    /// Its settings (type 05) come from GetFileSettings; the comm mode follows the Read right.
    public func readTransactionMAC(file: UInt8) async throws -> DESFireTransactionMAC {
        let settings = try await getFileSettings(file: file)
        guard case .transactionMAC = settings.kind else {
            throw DESFireError.malformedResponse(
                command: .getFileSettings, reason: "file \(file) is no TransactionMAC file")
        }
        let rights = settings.accessRights
        let fileMode = settings.commMode
        let mode: DESFireCommMode =
            session.map { [rights.read, rights.readWrite].contains($0.keyNumber) } == true ? fileMode : .plain
        recordTransactionMACs(file: file)
        let header = [file] + littleEndian(0, count: 3) + littleEndian(12, count: 3)
        let data = try await exchange(
            .readData, header: header, response: mode == .enciphered ? .enciphered(length: 12) : .plain, fileMode: mode)
        return try DESFireTransactionMAC(response: data, input: [], command: .readData)
    }

    /// CommitTransaction (`C7 01`) in an application with a TransactionMAC file: commits, and the
    /// card answers the new TMC ‖ TMV. The result carries the Transaction MAC Input the client
    /// recorded, for ``DESFireTransactionMAC/verify(key:uid:)``.
    public func commitTransactionReturningMAC() async throws -> DESFireTransactionMAC {
        let input = transactionMACInput?.bytes ?? []
        let answer = try await exchange(.commitTransaction, data: [0x01])
        endTransaction()
        return try DESFireTransactionMAC(response: answer, input: input, command: .commitTransaction)
    }

    /// TMKeyOption `02`: the AppTransactionMACKey is AES.
    static let transactionMACKeyOptionAES: UInt8 = 0x02

    /// Starts recording TMI in the selected application, whose TransactionMAC file is `file`.
    func recordTransactionMACs(file: UInt8) {
        transactionMACFile = file
        if transactionMACInput == nil { transactionMACInput = DESFireTransactionMACInput() }
    }

    /// Adds a data command to TMI when recording (the TransactionMAC file itself never counts).
    /// `head` is only built when it is recorded.
    func addTransactionMACInput(file: UInt8, _ head: @autoclosure () -> [UInt8], data: [UInt8]? = nil) {
        guard file != transactionMACFile, transactionMACInput != nil else { return }
        transactionMACInput?.add(head(), data: data)
    }

    /// A committed or aborted transaction: the next one starts with an empty TMI.
    func endTransaction() {
        fileSettingsCache = fileSettingsCache.filter { if case .standard = $0.value.kind { true } else { false } }
        if transactionMACInput != nil { transactionMACInput = DESFireTransactionMACInput() }
    }
}
