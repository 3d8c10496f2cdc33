import CardFlow

/// The provisioning flow: authenticate with the PICC master key → format → create an AES
/// application → change its key 0 from the default to `key` → create a standard data file
/// readable and writable only with key 0 → write → read back and compare.
///
/// With a diversified key source (``ApplicationKeySource/diversified(_:)``) each card gets its own
/// key 0: the first step reads the card's UID (GetCardUID, under the PICC master key) and derives
/// the key by AN10922 from it and the application ID; every later step, and the resume path of
/// "change application key", uses that derived key.
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
///
/// // One master key for the fleet, a different application key on every card:
/// let perCard = DESFireProvisioning(
///     application: try DESFireApplicationID(hex: "010203"), file: 1, size: 64, commMode: .enciphered,
///     applicationKey: .diversified(try DESFireKeyDiversification(masterKey: master, systemIdentifier: Array("door".utf8))),
///     data: Array("hello".utf8))
/// ```
public struct DESFireProvisioning: Sendable {
    /// Where the application's new key 0 comes from.
    public enum ApplicationKeySource: Sendable, Equatable {
        /// The same AES key on every card.
        case shared(DESFireKey)
        /// A key per card, derived by AN10922 from the card's UID and the application ID.
        case diversified(DESFireKeyDiversification)
    }

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
    /// Where the new key 0 of the application (AES) comes from.
    public var applicationKey: ApplicationKeySource
    /// The new key 0 of the application (AES) when every card gets the same one; with a
    /// diversified ``applicationKey``, the master key (which no card receives). Setting it makes
    /// the key source ``ApplicationKeySource/shared(_:)``.
    public var key: DESFireKey {
        get {
            switch applicationKey {
            case .shared(let key): key
            case .diversified(let diversification): diversification.masterKey
            }
        }
        set { applicationKey = .shared(newValue) }
    }
    public var data: [UInt8]
    /// The PICC master key (factory: DES 8 × 00).
    public var piccKey: DESFireKey
    /// Key count of the new application.
    public var keyCount: Int
    /// Key settings byte of the new application.
    public var keySettings: UInt8

    /// A plan that gives every card the same application key `key`.
    public init(
        application: DESFireApplicationID, file: UInt8, size: Int, commMode: DESFireCommMode, key: DESFireKey,
        data: [UInt8], piccKey: DESFireKey = .defaultDES, keyCount: Int = 1, keySettings: UInt8 = 0x0F
    ) {
        self.init(
            application: application, file: file, size: size, commMode: commMode, applicationKey: .shared(key),
            data: data, piccKey: piccKey, keyCount: keyCount, keySettings: keySettings)
    }

    /// A plan whose application key comes from `applicationKey` (shared, or diversified per card).
    public init(
        application: DESFireApplicationID, file: UInt8, size: Int, commMode: DESFireCommMode,
        applicationKey: ApplicationKeySource, data: [UInt8], piccKey: DESFireKey = .defaultDES, keyCount: Int = 1,
        keySettings: UInt8 = 0x0F
    ) {
        self.application = application
        self.file = file
        self.size = size
        self.commMode = commMode
        self.applicationKey = applicationKey
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

    /// What the steps hand on: the client and this card's application key (derived once, in the
    /// first step, so a step resumed after a lifted card uses the key the card was given).
    struct Card: Sendable {
        let client: DESFireClient
        let applicationKey: DESFireKey
    }

    /// The flow. The client is created in the first step and registered for reconnect recovery.
    public func flow() -> Flow<Result> {
        let plan = self
        return Flow.start(Self.stepNames[0]) { session -> Card in
            try plan.validate()
            await session.addRedaction(.instruction(DESFireCommand.changeKey.rawValue, cla: 0x90))
            let client = DESFireClient(channel: session)
            await client.enableRecovery(on: session)
            try await plan.enterPICC(client)
            switch plan.applicationKey {
            case .shared(let key):
                return Card(client: client, applicationKey: key)
            case .diversified(let diversification):
                // The real UID, also on cards that answer anti-collision with a random one.
                let uid = try await client.getCardUID()
                return Card(
                    client: client, applicationKey: try diversification.key(uid: uid, application: plan.application))
            }
        }
        .then(Self.stepNames[1]) { card, _ in
            try await plan.enterPICC(card.client)
            try await card.client.formatPICC()
            return card
        }
        .then(Self.stepNames[2]) { card, _ in
            let client = card.client
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
            return card
        }
        .then(Self.stepNames[3]) { card, _ in
            let client = card.client
            try await client.selectApplication(plan.application)
            do {
                try await client.authenticate(keyNumber: 0, key: .defaultAES)
            } catch DESFireError.cardStatus(.authenticationError, _) {
                // Already changed (the card left after ChangeKey): the new key must work.
                try await plan.enterApplication(card)
                return card
            }
            if card.applicationKey != .defaultAES { try await client.changeKey(keyNumber: 0, to: card.applicationKey) }
            try await plan.enterApplication(card)
            return card
        }
        .then(Self.stepNames[4]) { card, _ in
            let client = card.client
            try await plan.enterApplication(card)
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
            return card
        }
        .then(Self.stepNames[5]) { card, session in
            // Rewriting the same bytes is harmless, so a write cut short by a lifted card is simply redone.
            try await plan.enterApplication(card)
            try await card.client.writeData(file: plan.file, offset: 0, data: plan.data)
            await session.reportProgress(1)
            return card
        }
        .then(Self.stepNames[6]) { card, _ -> Result in
            let client = card.client
            try await plan.enterApplication(card)
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

    /// The application, authenticated with this card's new key 0 (skipped when already so).
    func enterApplication(_ card: Card) async throws {
        try await enter(card.client, application, key: card.applicationKey)
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
