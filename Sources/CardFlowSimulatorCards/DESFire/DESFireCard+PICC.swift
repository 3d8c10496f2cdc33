/// PICC-level commands: version, UID, memory, application management.
extension DESFireCard {
    /// HW and SW version frames of an EV1 8K (spec §5.6): vendor NXP, type 01, subtype 01,
    /// HW 1.0 / SW 1.4, storage 0x1A (8K), protocol ISO 14443-2/-3.
    static let hardwareVersion: [UInt8] = [0x04, 0x01, 0x01, 0x01, 0x00, 0x1A, 0x05]
    static let softwareVersion: [UInt8] = [0x04, 0x01, 0x01, 0x01, 0x04, 0x1A, 0x05]
    /// Production week and year (BCD).
    static let productionWeekYear: [UInt8] = [0x49, 0x13]

    /// GetVersion (60): always three frames, 7 + 7 + 14 bytes (plus the CMAC in an EV1 session).
    /// A random-ID card reports its UID as zeros here: only GetCardUID, after authentication,
    /// reveals it (that is what the random ID is for).
    mutating func getVersion(_ data: [UInt8]) throws(DESFireCardStatus) -> DESFireReply {
        try requireLength(data, 0)
        let reportedUID = randomUID ? [UInt8](repeating: 0, count: realUID.count) : realUID
        let bytes =
            Self.hardwareVersion + Self.softwareVersion + reportedUID + productionBatch + Self.productionWeekYear
        return DESFireReply(data: bytes, protection: .plain, frameSizes: [7, 7])
    }

    /// GetCardUID (51): the real UID, enciphered; needs any authenticated key.
    mutating func getCardUID(_ data: [UInt8]) throws(DESFireCardStatus) -> DESFireReply {
        try requireLength(data, 0)
        guard session != nil else { throw .authenticationError }
        return DESFireReply(data: realUID, protection: .enciphered)
    }

    /// FormatPICC (FC): PICC level with the PICC master key; deletes every application and
    /// frees all memory; keeps the PICC key, its settings, the SetConfiguration settings and the
    /// session. Refused (`9D`) once SetConfiguration disabled it.
    mutating func formatPICC(_ data: [UInt8]) throws(DESFireCardStatus) -> DESFireReply {
        try requireLength(data, 0)
        guard selectedAID == 0 else { throw .permissionDenied }
        try requireMasterKey(unless: false)
        guard !formatDisabled else { throw .permissionDenied }
        applications = []
        allocatedMemory = 0
        transaction = DESFireTransaction()
        return .ok
    }

    /// GetFreeMemory (6E): 3 bytes LE.
    mutating func getFreeMemory(_ data: [UInt8]) throws(DESFireCardStatus) -> DESFireReply {
        try requireLength(data, 0)
        return DESFireReply(data: DESFireBytes.le24(freeMemory))
    }

    /// GetApplicationIDs (6A): AIDs (3 bytes LE each), 19 per frame.
    mutating func getApplicationIDs(_ data: [UInt8]) throws(DESFireCardStatus) -> DESFireReply {
        try requireLength(data, 0)
        guard selectedAID == 0 else { throw .permissionDenied }
        try requireMasterKey(unless: picc.freeListing)
        let aids = applications.flatMap { DESFireBytes.le24(Int($0.aid)) }
        return DESFireReply(data: aids, frameSizes: Array(repeating: 57, count: 9))
    }

    /// GetDFNames (6D): one frame per application with an ISO DF name: AID(3) ISOFID(2) name.
    mutating func getDFNames(_ data: [UInt8]) throws(DESFireCardStatus) -> DESFireReply {
        try requireLength(data, 0)
        guard selectedAID == 0 else { throw .permissionDenied }
        try requireMasterKey(unless: picc.freeListing)
        var entries: [[UInt8]] = []
        for application in applications {
            guard let name = application.dfName else { continue }
            let fid = application.isoFileID ?? 0
            entries.append(DESFireBytes.le24(Int(application.aid)) + [UInt8(fid & 0xFF), UInt8(fid >> 8)] + name)
        }
        return DESFireReply(data: entries.flatMap { $0 }, frameSizes: entries.dropLast().map(\.count))
    }

    /// SelectApplication (5A): always ends the session and the pending transaction; no CMAC.
    mutating func selectApplication(_ data: [UInt8]) throws(DESFireCardStatus) -> DESFireReply {
        session = nil
        transaction = DESFireTransaction()
        try requireLength(data, 3)
        let aid = UInt32(DESFireBytes.readLE24(data, at: 0))
        guard aid == 0 || applications.contains(where: { $0.aid == aid }) else { throw .applicationNotFound }
        selectedAID = aid
        selectedISOFileID = nil
        return DESFireReply(protection: .none)
    }

    /// CreateApplication (CA): AID KS1 KS2 [ISOFID(2) if KS2 bit 5] [DF name 1…16].
    mutating func createApplication(_ data: [UInt8]) throws(DESFireCardStatus) -> DESFireReply {
        guard data.count >= 5 else { throw .lengthError }
        guard selectedAID == 0 else { throw .permissionDenied }
        try requireMasterKey(unless: picc.freeCreateDelete)
        let aid = UInt32(DESFireBytes.readLE24(data, at: 0))
        let keySettings = data[3]
        let ks2 = data[4]
        let keyCount = Int(ks2 & 0x0F)
        guard keyCount <= 14, ks2 & 0x10 == 0, let keyType = DESFireKeyType(rawValue: ks2 & 0xC0) else {
            throw .parameterError
        }
        var isoFileID: UInt16?
        var dfName: [UInt8]?
        if ks2 & 0x20 != 0 {
            guard data.count >= 7, data.count <= 7 + 16 else { throw .lengthError }
            isoFileID = DESFireBytes.readLE16(data, at: 5)
            if data.count > 7 { dfName = Array(data[7...]) }
        } else {
            guard data.count == 5 else { throw .lengthError }
        }
        guard aid != 0 else { throw .parameterError }
        guard !applications.contains(where: { $0.aid == aid }) else { throw .duplicateError }
        if let isoFileID, applications.contains(where: { $0.isoFileID == isoFileID }) { throw .duplicateError }
        if let dfName, applications.contains(where: { $0.dfName == dfName }) { throw .duplicateError }
        guard applications.count < 28 else { throw .countError }
        applications.append(
            DESFireApplication(
                aid: aid, keySettings: keySettings, keyType: keyType,
                keys: Array(repeating: defaultKey(keyType), count: keyCount),
                isoFileID: isoFileID, dfName: dfName, files: []))
        return .ok
    }

    /// DeleteApplication (DA): PICC master key, or (PICC KS bit 2) that application's master key.
    /// Memory is not returned until FormatPICC.
    mutating func deleteApplication(_ data: [UInt8]) throws(DESFireCardStatus) -> DESFireReply {
        try requireLength(data, 3)
        let aid = UInt32(DESFireBytes.readLE24(data, at: 0))
        guard aid != 0 else { throw .parameterError }
        guard let index = applications.firstIndex(where: { $0.aid == aid }) else { throw .applicationNotFound }
        let byPICCMaster = selectedAID == 0 && authenticatedWithMasterKey
        let byOwnMaster = selectedAID == aid && authenticatedWithMasterKey && picc.freeCreateDelete
        guard byPICCMaster || byOwnMaster else {
            throw selectedAID == 0 || selectedAID == aid ? .authenticationError : .permissionDenied
        }
        applications.remove(at: index)
        if selectedAID == aid {
            // Deleting the selected application ends the session; the PICC level is selected.
            selectedAID = 0
            selectedISOFileID = nil
            session = nil
            transaction = DESFireTransaction()
        }
        return .ok
    }
}
