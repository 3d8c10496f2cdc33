import CardFlow
import CardFlowDESFire

/// The DESFire application `bench ops` creates for its writes (AES, one key, three standard
/// data files: plain, MAC and full comm mode) and deletes afterwards.
struct DESFireBenchApplication {
    /// F0 CF B0: the bench application's ID, as messages name it.
    static let idText = "F0CFB0"
    /// Key 0 of a new AES application (16 zero bytes); the bench does not change it.
    static let key = DESFireKey.defaultAES

    let client: DESFireClient
    let piccKey: DESFireKey
    let fileSize: Int
    /// The bench application's ID (``idText``), checked like any other.
    let id: DESFireApplicationID

    init(client: DESFireClient, piccKey: DESFireKey, fileSize: Int) throws(DESFireError) {
        self.client = client
        self.piccKey = piccKey
        self.fileSize = fileSize
        self.id = try DESFireApplicationID(hex: Self.idText)
    }

    /// The applications on the card (PICC level, authenticated with the PICC master key, which
    /// some cards require for the listing).
    func existingIDs() async throws -> [DESFireApplicationID] {
        try await client.selectApplication(.picc)
        try await client.authenticate(keyNumber: 0, key: piccKey)
        return try await client.getApplicationIDs()
    }

    /// Creates the application and its files, and leaves it selected with key 0 authenticated.
    func create() async throws {
        try await client.createApplication(id, settings: 0x0F, keyCount: 1, keyType: .aes)
        try await client.selectApplication(id)
        try await client.authenticate(keyNumber: 0, key: Self.key)
        let keyZero = DESFireAccessRights(read: 0, write: 0, readWrite: 0, change: 0)
        for file in DESFireOperations.files {
            try await client.createDataFile(
                file: file.number, size: fileSize, commMode: file.mode, accessRights: keyZero)
        }
    }

    /// Deletes the application; runs to the end even when the calling task is cancelled.
    ///
    /// - Parameters:
    ///   - recorder: where a deletion that failed is noted.
    ///   - failure: the error the run ended with, if any (a lost card).
    /// - Throws: ``OperationsBenchError/benchApplicationLeft(reason:cardLoss:)`` when the card
    ///   was lost before the application could be deleted.
    func delete(_ recorder: inout OperationsRecorder, after failure: (any Error)?) async throws {
        let client = self.client
        let piccKey = self.piccKey
        // An unstructured task does not inherit the caller's cancellation.
        let outcome = await Task {
            try await client.selectApplication(.picc)
            try await client.authenticate(keyNumber: 0, key: piccKey)
            try await client.deleteApplication(id)
        }.result
        guard case .failure(let error) = outcome else { return }
        if error.meansCardLost || failure != nil {
            throw OperationsBenchError.benchApplicationLeft(
                reason:
                    "application \(id) could not be deleted (\(OperationsRecorder.describe(error))); delete it with the PICC master key",
                cardLoss: error.cardLoss ?? failure?.cardLoss)
        }
        recorder.note(
            SkippedOperation(
                name: "delete application \(id)",
                reason:
                    "could not delete the bench application: \(OperationsRecorder.describe(error)); delete it with the PICC master key"
            ))
    }

    /// After a creation that failed: deletes the application if the card made it anyway.
    ///
    /// - Parameter recorder: where a deletion that failed is noted.
    func deleteIfPresent(_ recorder: inout OperationsRecorder) async throws {
        let client = self.client
        let piccKey = self.piccKey
        let present = await Task {
            try await client.selectApplication(.picc)
            try await client.authenticate(keyNumber: 0, key: piccKey)
            return try await client.getApplicationIDs().contains(id)
        }.result
        if case .success(true) = present { try await delete(&recorder, after: nil) }
    }
}
