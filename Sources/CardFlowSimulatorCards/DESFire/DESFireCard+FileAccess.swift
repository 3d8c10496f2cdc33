/// Access-right evaluation for file commands (spec §4.6, §5.4).
extension DESFireCard {
    /// Whether one of `rights` grants the command: a free right (plain exchange), the
    /// authenticated key (the file's comm mode), or nothing (`9D` if all are "never", else `AE`).
    func grant(_ rights: [UInt8]) throws(DESFireCardStatus) -> DESFireAccessGrant {
        if rights.contains(DESFireAccessRights.free) { return .free }
        if let session, rights.contains(session.keyNumber) { return .key }
        if rights.allSatisfy({ $0 == DESFireAccessRights.never }) { throw .permissionDenied }
        throw .authenticationError
    }

    /// ``grant(_:)`` over every access-right set of `file` (its own and the EV2 additional ones):
    /// `rights` picks the nibbles of one set that allow the command.
    func grant(_ file: DESFireFile, _ rights: (DESFireAccessRights) -> [UInt8]) throws(DESFireCardStatus)
        -> DESFireAccessGrant
    {
        // Without EV2 additional sets (the usual file) the one set's rights, without joining sets.
        guard let additional = file.additionalAccessRights, !additional.isEmpty else {
            return try grant(rights(file.accessRights))
        }
        return try grant(file.accessRightSets.flatMap(rights))
    }

    /// The communication mode of a granted file command.
    func communicationMode(of file: DESFireFile, _ grant: DESFireAccessGrant) -> DESFireCommunicationMode {
        grant == .free ? .plain : file.mode
    }

    /// The response protection matching a file's communication mode.
    func protection(_ mode: DESFireCommunicationMode) -> DESFireReply.Protection {
        switch mode {
        case .plain: .plainData
        case .mac: .mac
        case .enciphered: .enciphered
        }
    }

    /// The answer to a file write (WriteData, WriteRecord, Credit…): no data; in EV2 bare in
    /// CommMode.Plain and MACed otherwise, in EV1 CMACed as every answer.
    func writeReply(_ mode: DESFireCommunicationMode) -> DESFireReply {
        DESFireReply(protection: mode == .plain ? .plainData : .plain)
    }

    /// EV2: how a file-reading command (ReadData, GetValue, ReadRecords) travels, decided before
    /// its handler runs: CommMode.Plain for a free right or a plain file, else CommMode.MAC (the
    /// command of a Full read carries no data to encipher). A command the card will refuse is
    /// taken as plain, so that the handler answers its error (no such file, `AE`, `9D`).
    func ev2ReadCommandProtection(_ ins: UInt8, _ data: [UInt8]) -> EV2CardProtection {
        guard let number = data.first, let file = try? lookUpFile(number) else { return .plain }
        let allowed: (DESFireAccessRights) -> [UInt8] =
            ins == 0x6C ? { [$0.read, $0.write, $0.readWrite] } : { [$0.read, $0.readWrite] }
        guard let access = try? grant(file, allowed) else { return .plain }
        return communicationMode(of: file, access) == .plain ? .plain : .mac
    }

    /// Index of file `number` in the selected application.
    func fileIndex(_ number: UInt8) throws(DESFireCardStatus) -> Int {
        guard selectedAID != 0 else { throw .permissionDenied }
        guard let index = current.fileIndex(number) else { throw .fileNotFound }
        return index
    }
}
