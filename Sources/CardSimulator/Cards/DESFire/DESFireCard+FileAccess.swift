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

    /// The communication mode of a granted file command.
    func communicationMode(of file: DESFireFile, _ grant: DESFireAccessGrant) -> DESFireCommunicationMode {
        grant == .free ? .plain : file.mode
    }

    /// The response protection matching a file's communication mode.
    func protection(_ mode: DESFireCommunicationMode) -> DESFireReply.Protection {
        switch mode {
        case .plain: .plain
        case .mac: .mac
        case .enciphered: .enciphered
        }
    }

    /// Index of file `number` in the selected application.
    func fileIndex(_ number: UInt8) throws(DESFireCardStatus) -> Int {
        guard selectedAID != 0 else { throw .permissionDenied }
        guard let index = current.fileIndex(number) else { throw .fileNotFound }
        return index
    }
}
