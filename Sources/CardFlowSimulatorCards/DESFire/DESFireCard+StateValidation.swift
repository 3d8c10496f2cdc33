/// Checks on a decoded state file: every rule the model keeps while it runs (key lengths,
/// application and file limits, record and value consistency, memory) must hold for what a file
/// brings in too, so an edited or hostile file is refused instead of making the model trap.
extension DESFireCard {
    /// Throws `DecodingError.dataCorrupted` naming the first broken rule.
    static func validatePersistentState(
        realUID: [UInt8], picc: DESFireApplication, applications: [DESFireApplication],
        allocatedMemory: Int, productionBatch: [UInt8]
    ) throws {
        func corrupt(_ reason: String) -> DecodingError {
            DecodingError.dataCorrupted(DecodingError.Context(codingPath: [], debugDescription: reason))
        }
        guard realUID.count == 7 else { throw corrupt("realUID has \(realUID.count) bytes, 7 expected") }
        guard productionBatch.count == 5 else {
            throw corrupt("productionBatch has \(productionBatch.count) bytes, 5 expected")
        }
        guard picc.aid == 0, picc.keys.count == 1, picc.files.isEmpty, picc.isoFileID == nil, picc.dfName == nil else {
            throw corrupt("the PICC level must be AID 000000 with one key and no files")
        }
        guard applications.count <= 28 else { throw corrupt("\(applications.count) applications, at most 28") }
        guard Set(applications.map(\.aid)).count == applications.count else {
            throw corrupt("duplicate application IDs")
        }
        for application in [picc] + applications {
            try validate(application, corrupt: corrupt)
        }
        let used = applications.flatMap(\.files).reduce(0) { $0 + $1.allocatedBytes }
        guard (0...DESFireMemory.capacity).contains(allocatedMemory), used <= DESFireMemory.capacity else {
            throw corrupt(
                "allocated memory \(allocatedMemory) (files use \(used)) is outside 0...\(DESFireMemory.capacity)")
        }
    }

    /// SetConfiguration's settings: a 24-byte default key, an ATS the card could have accepted.
    static func validateConfiguration(defaultKeyData: [UInt8], userATS: [UInt8]?) throws {
        func corrupt(_ reason: String) -> DecodingError {
            DecodingError.dataCorrupted(DecodingError.Context(codingPath: [], debugDescription: reason))
        }
        guard defaultKeyData.count == defaultKeyFieldLength else {
            throw corrupt("defaultKeyData has \(defaultKeyData.count) bytes, \(defaultKeyFieldLength) expected")
        }
        if let ats = userATS {
            guard (2...maximumATSLength).contains(ats.count), Int(ats[0]) == ats.count else {
                throw corrupt("userATS must be 2…\(maximumATSLength) bytes starting with its length")
            }
        }
    }

    private static func validate(_ application: DESFireApplication, corrupt: (String) -> DecodingError) throws {
        let name = String(application.aid, radix: 16)
        guard application.aid <= 0xFF_FFFF, application.aid != 0 || application.files.isEmpty else {
            throw corrupt("application \(name) has an invalid AID")
        }
        guard application.keys.count <= 14 else {
            throw corrupt("application \(name) has \(application.keys.count) keys, at most 14")
        }
        for key in application.keys {
            guard key.type == application.keyType, key.bytes.count == key.type.keyLength else {
                throw corrupt("application \(name) has a key of type \(key.type) with \(key.bytes.count) bytes")
            }
        }
        if let dfName = application.dfName {
            guard (1...16).contains(dfName.count), application.isoFileID != nil else {
                throw corrupt(
                    "application \(name) has a DF name of \(dfName.count) bytes (1...16, with an ISO file ID)")
            }
        }
        guard application.files.count <= Int(maxFileNumber) + 1,
            Set(application.files.map(\.number)).count == application.files.count
        else {
            throw corrupt("application \(name) has duplicate or too many files")
        }
        for file in application.files {
            try validate(file, in: name, corrupt: corrupt)
        }
    }

    private static func validate(_ file: DESFireFile, in application: String, corrupt: (String) -> DecodingError) throws
    {
        let name = "file \(file.number) of application \(application)"
        guard file.number <= maxFileNumber else { throw corrupt("\(name): number above \(maxFileNumber)") }
        guard file.communication & 0xFC == 0 else {
            throw corrupt("\(name): communication setting \(file.communication)")
        }
        if let additional = file.additionalAccessRights, !(1...7).contains(additional.count) {
            throw corrupt("\(name): \(additional.count) additional access rights (EV2 allows 1...7)")
        }
        if file.type == .transactionMAC, file.additionalAccessRights != nil {
            throw corrupt("\(name): a TransactionMAC file with additional access rights")
        }
        if file.type != .transactionMAC, file.transactionMACCounterLimit != nil {
            throw corrupt("\(name): a TMC limit on a file that is no TransactionMAC file")
        }
        switch file.type {
        case .standard, .backup:
            guard file.data.count <= DESFireMemory.capacity, file.valueState == nil, file.recordState == nil else {
                throw corrupt("\(name): a data file of \(file.data.count) bytes, or with value/record state")
            }
        case .transactionMAC:
            guard file.data.count == 12, file.transactionMACKey?.bytes.count == 16, file.valueState == nil,
                file.recordState == nil
            else {
                throw corrupt("\(name): TransactionMAC file without 12 bytes of TMC ‖ TMV or an AES key")
            }
        case .value:
            guard let state = file.valueState, file.recordState == nil, file.data.isEmpty,
                state.lower <= state.upper, (state.lower...state.upper).contains(state.value)
            else {
                throw corrupt("\(name): value file without a consistent value state")
            }
        case .linearRecord, .cyclicRecord:
            guard let state = file.recordState, file.valueState == nil, file.data.isEmpty,
                (1...DESFireMemory.capacity).contains(state.recordSize),
                state.maxRecords >= (file.type == .cyclicRecord ? 2 : 1),
                state.maxRecords <= DESFireMemory.capacity / state.recordSize,
                state.records.count <= state.capacity(cyclic: file.type == .cyclicRecord),
                state.records.allSatisfy({ $0.count == state.recordSize })
            else {
                throw corrupt("\(name): record file without a consistent record state")
            }
        }
    }
}
