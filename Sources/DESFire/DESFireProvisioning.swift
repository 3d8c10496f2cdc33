import CardFlow

/// The provisioning flow: authenticate with the PICC master key → format → create an AES
/// application → change its key 0 from the default to `key` → create a standard data file
/// readable and writable only with key 0 → write → read back and compare.
///
/// Every step establishes its own state (selection, authentication) and is idempotent, so a card
/// lifted between or during steps resumes where it left: "create application" and "create file"
/// first look whether the object already exists with the right settings, "change key" tries the
/// new key when the default one is refused, and the write is verified by reading it back (and
/// rewritten when it differs).
///
/// ```swift
/// let provisioning = DESFireProvisioning(application: try DESFireApplicationID(hex: "010203"), file: 1, size: 64,
///                                        commMode: .enciphered, key: appKey, data: Array("hello".utf8))
/// let run = reader.run(provisioning.flow(), policy: provisioning.policy(base: .default))
/// for await event in run.progress { print(event) }
/// let result = try await run.value
/// ```
public struct DESFireProvisioning: Sendable {
    /// What the flow produced.
    public struct Result: Sendable, Equatable {
        public let application: DESFireApplicationID
        public let file: UInt8
        /// The data read back (equal to the data written).
        public let readBack: [UInt8]
        /// The card's UID (GetCardUID).
        public let uid: [UInt8]
    }

    public var application: DESFireApplicationID
    public var file: UInt8
    public var size: Int
    public var commMode: DESFireCommMode
    /// The new key 0 of the application (AES).
    public var key: DESFireKey
    public var data: [UInt8]
    /// The PICC master key (factory: DES 8 × 00).
    public var piccKey: DESFireKey
    /// Key count of the new application.
    public var keyCount: Int
    /// Key settings byte of the new application.
    public var keySettings: UInt8

    public init(
        application: DESFireApplicationID, file: UInt8, size: Int, commMode: DESFireCommMode, key: DESFireKey,
        data: [UInt8], piccKey: DESFireKey = .defaultDES, keyCount: Int = 1, keySettings: UInt8 = 0x0F
    ) {
        self.application = application
        self.file = file
        self.size = size
        self.commMode = commMode
        self.key = key
        self.data = data
        self.piccKey = piccKey
        self.keyCount = keyCount
        self.keySettings = keySettings
    }

    /// Access rights of the file: read, write, read&write and change only with key 0.
    public static let keyZeroOnly = DESFireAccessRights(read: 0, write: 0, readWrite: 0, change: 0)

    /// The step names, in order.
    public static let stepNames = [
        "authenticate PICC", "format", "create application", "change application key",
        "create file", "write", "read back",
    ]

    /// `base` with the DESFire identity resolver (GetCardUID with the PICC key for random UIDs).
    public func policy(base: SessionPolicy) -> SessionPolicy {
        var policy = base
        policy.identity = DESFireIdentity.resolver(key: piccKey)
        return policy
    }

    /// Checks the parameters before anything is sent.
    public func validate() throws(DESFireError) {
        guard key.type == .aes else { throw .invalidArgument("the application key must be AES") }
        guard application != .picc else { throw .invalidArgument("000000 is the PICC level, not an application") }
        guard file <= 31 else { throw .invalidArgument("file number \(file) is outside 0...31") }
        guard size > 0, size <= 0xFF_FFFF else { throw .invalidArgument("file size \(size) is out of range") }
        guard data.count <= size else {
            throw .invalidArgument("\(data.count) bytes of data do not fit a \(size)-byte file")
        }
    }

    /// The flow. The client is created in the first step and registered for reconnect recovery.
    public func flow() -> Flow<Result> {
        let plan = self
        return Flow.start(Self.stepNames[0]) { session -> DESFireClient in
            try plan.validate()
            await session.addRedaction(.instruction(DESFireCommand.changeKey.rawValue, cla: 0x90))
            let client = DESFireClient(channel: session)
            await client.enableRecovery(on: session)
            try await plan.enterPICC(client)
            return client
        }
        .then(Self.stepNames[1]) { client, _ in
            try await plan.enterPICC(client)
            try await client.formatPICC()
            return client
        }
        .then(Self.stepNames[2]) { client, _ in
            try await plan.enterPICC(client)
            if try await client.getApplicationIDs().contains(plan.application) {
                try await client.selectApplication(plan.application)
                let settings = try await client.getKeySettings()
                guard settings.keyType == .aes, settings.keyCount == plan.keyCount else {
                    throw DESFireError.verificationFailed(
                        file: plan.file, reason: "application \(plan.application) exists with \(settings)")
                }
            } else {
                try await client.createApplication(
                    plan.application, settings: plan.keySettings, keyCount: plan.keyCount, keyType: .aes)
            }
            return client
        }
        .then(Self.stepNames[3]) { client, _ in
            try await client.selectApplication(plan.application)
            do {
                try await client.authenticate(keyNumber: 0, key: .defaultAES)
            } catch DESFireError.cardStatus(.authenticationError, _) {
                // Already changed (the card left after ChangeKey): the new key must work.
                try await plan.enterApplication(client)
                return client
            }
            if plan.key != .defaultAES { try await client.changeKey(keyNumber: 0, to: plan.key) }
            try await plan.enterApplication(client)
            return client
        }
        .then(Self.stepNames[4]) { client, _ in
            try await plan.enterApplication(client)
            if try await client.getFileIDs().contains(plan.file) {
                let settings = try await client.getFileSettings(file: plan.file)
                let expected = DESFireFileSettings(
                    kind: .standard(size: plan.size), commMode: plan.commMode, accessRights: Self.keyZeroOnly)
                guard settings == expected else {
                    throw DESFireError.verificationFailed(file: plan.file, reason: "file exists as \(settings)")
                }
            } else {
                try await client.createDataFile(
                    file: plan.file, size: plan.size, commMode: plan.commMode, accessRights: Self.keyZeroOnly)
            }
            return client
        }
        .then(Self.stepNames[5]) { client, session in
            // Rewriting the same bytes is harmless, so a write cut short by a lifted card is simply redone.
            try await plan.enterApplication(client)
            try await client.writeData(file: plan.file, offset: 0, data: plan.data)
            await session.reportProgress(1)
            return client
        }
        .then(Self.stepNames[6]) { client, _ -> Result in
            try await plan.enterApplication(client)
            var readBack = try await client.readData(file: plan.file, offset: 0, length: plan.data.count)
            if readBack != plan.data {
                try await client.writeData(file: plan.file, offset: 0, data: plan.data)
                readBack = try await client.readData(file: plan.file, offset: 0, length: plan.data.count)
                guard readBack == plan.data else {
                    throw DESFireError.verificationFailed(
                        file: plan.file, reason: "read back \(readBack.count) bytes that differ from the data written")
                }
            }
            let uid = try await client.getCardUID()
            return Result(application: plan.application, file: plan.file, readBack: readBack, uid: uid)
        }
    }

    /// PICC level, authenticated with the PICC master key (skipped when already so).
    func enterPICC(_ client: DESFireClient) async throws {
        try await enter(client, .picc, key: piccKey)
    }

    /// The application, authenticated with its new key 0 (skipped when already so).
    func enterApplication(_ client: DESFireClient) async throws {
        try await enter(client, application, key: key)
    }

    /// Selects `aid` unless it is selected (a selection survives errors and ended sessions), then
    /// authenticates with key 0 unless that session is open.
    private func enter(_ client: DESFireClient, _ aid: DESFireApplicationID, key: DESFireKey) async throws {
        let selected = await client.selectedApplication == aid
        if selected, await client.authenticatedKeyNumber == 0, await client.lastAuthentication?.key == key { return }
        if !selected { try await client.selectApplication(aid) }
        try await client.authenticate(keyNumber: 0, key: key)
    }
}
