/// ISO/IEC 7816-4 file access inside applications created with ISO file identifiers (DESFire EV1
/// ISOSelectFile, ISOReadBinary, ISOUpdateBinary): what an NFC Forum Type 4 reader uses on a
/// DESFire NDEF application (`00 A4 04 00` the DF name, `00 A4 00 0C 02 E1 03` the capability
/// container, `00 B0` / `00 D6` its data).
///
/// The card keeps one selected elementary file (volatile). ISO commands run in plain: a file
/// whose Read (or Read&Write) right is free (`E`) can be read, one whose Write (or Read&Write)
/// right is free can be updated; a right held by the key of the open native session also grants
/// it when the file is in plain communication; anything else is `69 82`. Standard and backup
/// data files are binary files; value and record files are not (`69 81`).
extension DESFireCard {
    /// The MF file identifier: the PICC level.
    static let masterFileID: UInt16 = 0x3F00

    /// SELECT by file identifier (`00 A4 00|02 0C 02 FID`): P1 `00` selects the MF (3F00, the PICC
    /// level), an application by its ISO FID, or an EF of the selected application; P1 `02` only an
    /// EF. No FCI is returned (P2 `0C`; other P2 `6A 86`). Selecting a DF ends the session and the
    /// transaction, as SelectApplication does; selecting an EF keeps them.
    mutating func isoSelectByFileID(_ apdu: ISO7816CommandAPDU) -> [UInt8] {
        guard apdu.p1 == 0x00 || apdu.p1 == 0x02, apdu.p2 == 0x0C else { return [0x6A, 0x86] }
        guard apdu.data.count == 2 else { return [0x67, 0x00] }
        let fid = UInt16(apdu.data[0]) << 8 | UInt16(apdu.data[1])
        if apdu.p1 == 0x00 {
            if fid == Self.masterFileID {
                selectDedicatedFile(0)
                return [0x90, 0x00]
            }
            if let application = applications.first(where: { $0.isoFileID == fid }) {
                selectDedicatedFile(application.aid)
                return [0x90, 0x00]
            }
        }
        guard selectedAID != 0, current.files.contains(where: { $0.isoFileID == fid }) else { return [0x6A, 0x82] }
        selectedISOFileID = fid
        return [0x90, 0x00]
    }

    /// A DF selected through ISO 7816-4 (by name or FID): the session and the transaction end.
    mutating func selectDedicatedFile(_ aid: UInt32) {
        pendingFrames = []
        pendingCommand = nil
        pendingAuthentication = nil
        session = nil
        transaction = DESFireTransaction()
        selectedAID = aid
        selectedISOFileID = nil
    }

    /// READ BINARY (`00 B0 P1 P2 Le`): offset P1-P2 (15 bits), Le bytes (00: up to 256); fewer
    /// bytes than asked at the end of the file with `62 82`.
    mutating func isoReadBinary(_ apdu: ISO7816CommandAPDU) -> [UInt8] {
        let file: DESFireFile
        let offset: Int
        switch binaryTarget(apdu) {
        case .failure(let status): return status.bytes
        case .success(let target): (file, offset) = target
        }
        guard isoAccessGranted(file, { [$0.read, $0.readWrite] }) else { return [0x69, 0x82] }
        guard offset < file.data.count else { return [0x6B, 0x00] }
        let wanted = apdu.ne ?? 256
        let available = file.data.count - offset
        let content = Array(file.data[offset..<offset + min(wanted, available)])
        return content + (wanted > available ? [0x62, 0x82] : [0x90, 0x00])
    }

    /// UPDATE BINARY (`00 D6 P1 P2 Lc data`) on a standard data file, at offset P1-P2.
    mutating func isoUpdateBinary(_ apdu: ISO7816CommandAPDU) -> [UInt8] {
        let file: DESFireFile
        let offset: Int
        switch binaryTarget(apdu) {
        case .failure(let status): return status.bytes
        case .success(let target): (file, offset) = target
        }
        // A backup file changes only at CommitTransaction, which ISO 7816-4 has no word for.
        guard file.type == .standard else { return [0x69, 0x81] }
        guard isoAccessGranted(file, { [$0.write, $0.readWrite] }) else { return [0x69, 0x82] }
        guard !apdu.data.isEmpty else { return [0x67, 0x00] }
        guard offset < file.data.count else { return [0x6B, 0x00] }
        guard offset + apdu.data.count <= file.data.count else { return [0x67, 0x00] }
        guard let index = current.files.firstIndex(where: { $0.number == file.number }) else { return [0x69, 0x86] }
        current.files[index].data.replaceSubrange(offset..<offset + apdu.data.count, with: apdu.data)
        return [0x90, 0x00]
    }

    /// An ISO status word as a failure value.
    struct ISOStatus: Error, Sendable, Hashable {
        var bytes: [UInt8]
    }

    /// The selected EF and the offset of a READ/UPDATE BINARY.
    private mutating func binaryTarget(_ apdu: ISO7816CommandAPDU) -> Result<(DESFireFile, Int), ISOStatus> {
        // The native command chain in progress is abandoned, as with any other command.
        pendingFrames = []
        pendingCommand = nil
        pendingAuthentication = nil
        // P1 bit 8: a short EF identifier, which the model does not support.
        guard apdu.p1 & 0x80 == 0 else { return .failure(ISOStatus(bytes: [0x6A, 0x81])) }
        guard selectedAID != 0, let fid = selectedISOFileID,
            let file = current.files.first(where: { $0.isoFileID == fid })
        else { return .failure(ISOStatus(bytes: [0x69, 0x86])) }
        guard file.isDataFile else { return .failure(ISOStatus(bytes: [0x69, 0x81])) }
        return .success((file, Int(apdu.p1) << 8 | Int(apdu.p2)))
    }

    /// A free right, or the open session's key for a file in plain communication.
    private func isoAccessGranted(_ file: DESFireFile, _ rights: (DESFireAccessRights) -> [UInt8]) -> Bool {
        let allowed = file.accessRightSets.flatMap(rights)
        if allowed.contains(DESFireAccessRights.free) { return true }
        guard let session, file.mode == .plain else { return false }
        return allowed.contains(session.keyNumber)
    }
}
