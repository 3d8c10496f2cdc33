import CardFlow
import CardFlowDESFire

/// The DESFire operations of `bench ops`.
///
/// Always (nothing written): SELECT of the PICC level + GetVersion, authentication with the
/// PICC master key, GetApplicationIDs. With ``OperationsPlan/allowWrite``: in the bench
/// application F0CFB0 (created for the run, deleted afterwards, never
/// touched when it already existed), AES authentication with key 0 and, per comm mode
/// (plain, MAC, full), a write and a read of ``OperationsPlan/dataLength`` bytes.
struct DESFireOperations {
    let plan: OperationsPlan

    /// The rows' comm mode names, as ``OperationTiming/commMode`` spells them.
    static func modeName(_ mode: DESFireCommMode) -> String {
        switch mode {
        case .plain: "plain"
        case .mac: "mac"
        case .enciphered: "full"
        }
    }

    /// One bench file per comm mode.
    static let files: [(number: UInt8, mode: DESFireCommMode)] = [(1, .plain), (2, .mac), (3, .enciphered)]

    static let applicationAuthentication = "authenticate AES (application key 0)"

    var writeName: String { "write \(plan.dataLength) B" }
    var readName: String { "read \(plan.dataLength) B" }

    /// The rows that need a bench application, as skipped rows name them.
    var applicationRows: [String] {
        [Self.applicationAuthentication]
            + Self.files.flatMap { file in
                [writeName, readName].map { OperationsRecorder.rowName($0, commMode: Self.modeName(file.mode)) }
            }
    }

    /// Rows the run produces, for progress.
    var plannedOperations: Int { 3 + applicationRows.count }

    func run(_ recorder: inout OperationsRecorder) async throws {
        let client = DESFireClient(channel: recorder.channel)
        let piccKey = plan.desfirePICCKey
        try await recorder.measure("select PICC + get version") { _ in
            try await client.selectApplication(.picc)
            _ = try await client.getVersion()
        }
        let authenticated = try await recorder.measure("authenticate PICC master key (\(piccKey.type))") { _ in
            try await client.authenticate(keyNumber: 0, key: piccKey)
        }
        try await recorder.measure("get application IDs") { _ in _ = try await client.getApplicationIDs() }

        guard plan.allowWrite else {
            recorder.skip(
                applicationRows,
                reason: "needs --allow-write (creates and deletes application \(DESFireBenchApplication.idText))")
            return
        }
        guard authenticated else {
            recorder.skip(
                applicationRows,
                reason:
                    "the PICC master key did not authenticate, so application \(DESFireBenchApplication.idText) cannot be created and deleted"
            )
            return
        }
        let application = try DESFireBenchApplication(client: client, piccKey: piccKey, fileSize: plan.dataLength)
        guard
            let existing = try await recorder.prepare(
                "listing the card's applications", dependents: applicationRows, { try await application.existingIDs() })
        else { return }
        guard !existing.contains(application.id) else {
            recorder.skip(
                applicationRows,
                reason:
                    "application \(DESFireBenchApplication.idText) already exists on the card; the bench leaves it alone"
            )
            return
        }
        guard
            try await recorder.prepare(
                "creating application \(DESFireBenchApplication.idText)", dependents: applicationRows,
                { try await application.create() }) != nil
        else {
            try await application.deleteIfPresent(&recorder)
            return
        }
        // From here on the application is deleted whatever happens, cancellation included.
        var failure: (any Error)?
        do {
            try await measureApplication(client, &recorder)
        } catch {
            failure = error
        }
        try await application.delete(&recorder, after: failure)
        if let failure { throw failure }
    }

    /// The rows inside the bench application (created, with its files).
    private func measureApplication(_ client: DESFireClient, _ recorder: inout OperationsRecorder) async throws {
        let key = DESFireBenchApplication.key
        let length = plan.dataLength
        let data = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 29 &+ 7) }
        try await recorder.measure(Self.applicationAuthentication) { _ in
            try await client.authenticate(keyNumber: 0, key: key)
        }
        for file in Self.files {
            let mode = Self.modeName(file.mode)
            let rows = [writeName, readName].map { OperationsRecorder.rowName($0, commMode: mode) }
            // Every mode starts from a fresh session (a failed command ends the session).
            guard
                try await recorder.prepare(
                    "authenticating with application key 0", dependents: rows,
                    { try await client.authenticate(keyNumber: 0, key: key) }) != nil
            else { continue }
            let written = try await recorder.measure(writeName, commMode: mode, bytes: length, writes: true) { _ in
                try await client.writeData(file: file.number, offset: 0, data: data, commMode: file.mode)
            }
            if !written {
                guard
                    try await recorder.prepare(
                        "authenticating with application key 0", dependents: [rows[1]],
                        { try await client.authenticate(keyNumber: 0, key: key) }) != nil
                else { continue }
            }
            try await recorder.measure(readName, commMode: mode, bytes: length) { _ in
                _ = try await client.readData(file: file.number, offset: 0, length: length, commMode: file.mode)
            }
        }
    }
}
