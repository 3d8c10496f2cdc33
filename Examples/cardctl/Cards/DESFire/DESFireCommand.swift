import ArgumentParser
import CardFlow
import CardFlowDESFire

/// `cardctl desfire ...`: MIFARE DESFire EV1 operations (the uFR DESFire example's set) and provisioning.
struct DESFireCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "desfire",
        abstract:
            "MIFARE DESFire EV1: format, keys, applications, files, read/write with secure messaging, provisioning.",
        discussion: """
            Keys: --key HEX, --key-ascii TEXT or --key-slot N (key store); --key-type aes|des|2k3des|3k3des when the length \
            is ambiguous (16 bytes default to AES). The PICC master key is --picc-key (default DES 8 x 00).
            With --diversify (provision, read, write, create-file, file-settings, files, change-key) the application key given \
            is an AN10922 master key: the card's own key is derived from its UID, --aid and --system-identifier HEX. The UID \
            is the one the reader reports, or GetCardUID under --picc-key for a card that shows a random one.
            Comm mode of file I/O comes from the file's settings unless --comm is given.
            uFR readers: with --reader-key N (and --new-reader-key/--old-reader-key for des-to-aes and change-key) the \
            reader runs format, des-to-aes, free-memory, create-app, create-file, read, write and change-key itself with \
            the AES key in its key slot N (store it with `cardctl ufr key-write`); --reader-runs does so with the keys \
            given here. Then --comm defaults to plain and read needs --length.
            """,
        subcommands: [
            DESFireFormat.self, DESFireDESToAES.self, DESFireFreeMemory.self, DESFireCreateApp.self,
            DESFireCreateFile.self, DESFireFileSettingsCommand.self, DESFireRead.self, DESFireWrite.self,
            DESFireChangeKey.self, DESFireUID.self, DESFireVersionCommand.self, DESFireApps.self, DESFireFiles.self,
            DESFireProvision.self,
        ])
}

/// Runs `body` with a DESFire client on a session of the primary reader.
func withDESFire<T: Sendable>(
    _ global: GlobalOptions,
    _ body: @escaping @Sendable (DESFireClient) async throws -> T
) async throws -> T {
    try await withDESFire(global) { client, _ in try await body(client) }
}

/// Runs `body` with a DESFire client and its session (for the card's identity) on the primary reader.
func withDESFire<T: Sendable>(
    _ global: GlobalOptions,
    _ body: @escaping @Sendable (DESFireClient, CardSession) async throws -> T
) async throws -> T {
    try await ReaderConnection.withPrimarySession(global) { session in
        let client = DESFireClient(channel: session)
        await client.enableRecovery(on: session)
        return try await body(client, session)
    }
}

/// Selects `aid` and authenticates with `key`, or with the key `diversification` derives from it
/// for this card (`--diversify`).
func enter(
    _ client: DESFireClient, session: CardSession, aid: DESFireApplicationID, keys: DESFireKeyOptions,
    key: DESFireKey?, diversification: DESFireDiversificationOptions, method: DESFireAuthenticationMethod
) async throws {
    let cardKey = try await diversification.cardKey(
        key, aid: aid, client: client, session: session, keys: keys, method: method)
    try await enter(client, aid: aid, keyNumber: keys.keyNumber, key: cardKey, method: method)
}

/// The comm mode a `--comm` option names.
func parseCommMode(_ name: String) throws -> DESFireCommMode {
    guard let mode = DESFireCommMode(name: name) else { throw InputError(description: "--comm is plain, mac or enc") }
    return mode
}

/// Selects `aid` and authenticates with `key` (key number `keyNumber`) when a key is given.
func enter(
    _ client: DESFireClient, aid: DESFireApplicationID, keyNumber: UInt8, key: DESFireKey?,
    method: DESFireAuthenticationMethod = .automatic
) async throws {
    try await client.selectApplication(aid)
    if let key { try await client.authenticate(keyNumber: keyNumber, key: key, method: method) }
}

struct DESFireFormat: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "format", abstract: "Delete every application (needs the PICC master key).")
    @OptionGroup(title: "Global Options") var global: GlobalOptions
    @OptionGroup var keys: DESFireKeyOptions
    @OptionGroup var readerKeys: DESFireReaderKeyOptions
    func run() async throws {
        if readerKeys.isRequested { return try await runOnReader() }
        let method = try keys.method()
        let picc = try await keys.key() ?? keys.piccKey()
        try await withDESFire(global) { client in
            try await enter(client, aid: .picc, keyNumber: 0, key: picc, method: method)
            try await client.formatPICC()
        }
        if global.json { try Output.json(DESFireOutput.Formatted()) } else { Output.standardOutput("card formatted") }
    }
}

struct DESFireDESToAES: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "des-to-aes",
        abstract: "Change the PICC master key from DES (--picc-key, default 8 x 00) to AES (--key, default 16 x 00).")
    @OptionGroup(title: "Global Options") var global: GlobalOptions
    @OptionGroup var keys: DESFireKeyOptions
    @Option(name: .customLong("key-version"), help: "Version of the new AES key.") var version: UInt8 = 0
    @OptionGroup var readerKeys: DESFireReaderKeyOptions
    @OptionGroup var changed: DESFireChangedReaderKeyOptions
    func run() async throws {
        if readerKeys.isRequested || changed.isRequested { return try await runOnReader() }
        let method = try keys.method()
        let picc = try keys.piccKey()
        let given = try await keys.key()
        let newKey = try DESFireKey(type: .aes, bytes: (given ?? .defaultAES).bytes, version: version)
        guard newKey.type == .aes, given.map({ $0.type == .aes }) ?? true else {
            throw InputError(description: "the new key must be AES")
        }
        try await withDESFire(global) { client in
            try await enter(client, aid: .picc, keyNumber: 0, key: picc, method: method)
            try await client.changeKey(keyNumber: 0, to: newKey)
        }
        if global.json {
            try Output.json(DESFireOutput.PICCKeyChanged(version: version))
        } else {
            Output.standardOutput("PICC master key is now AES (version \(version))")
        }
    }
}

struct DESFireFreeMemory: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "free-memory", abstract: "Free bytes on the card.")
    @OptionGroup(title: "Global Options") var global: GlobalOptions
    @OptionGroup var readerKeys: DESFireReaderKeyOptions
    func run() async throws {
        if readerKeys.isRequested { return try await runOnReader() }
        let free = try await withDESFire(global) { client in try await client.getFreeMemory() }
        if global.json {
            try Output.json(DESFireOutput.FreeMemory(freeMemory: free))
        } else {
            Output.standardOutput("\(free) bytes free")
        }
    }
}

struct DESFireCreateApp: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "create-app", abstract: "Create an application (authenticates with --picc-key).")
    @OptionGroup(title: "Global Options") var global: GlobalOptions
    @OptionGroup var application: DESFireApplicationOption
    @OptionGroup var keys: DESFireKeyOptions
    @Option(name: .customLong("key-count"), help: "Number of application keys (1-14).") var keyCount: Int = 1
    @Option(name: .customLong("app-key-type"), help: "Application key type: aes, des, 2k3des, 3k3des.") var appKeyType:
        String = "aes"
    @Option(name: .customLong("settings"), help: ArgumentHelp("Key settings byte in hex.", valueName: "HEX"))
    var settings: String = "0F"
    @Flag(name: .customLong("no-auth"), help: "Do not authenticate with the PICC master key.") var noAuth = false
    @OptionGroup var readerKeys: DESFireReaderKeyOptions
    func run() async throws {
        if readerKeys.isRequested { return try await runOnReader() }
        let method = try keys.method()
        let aid = try application.aid()
        guard let type = DESFireKeyType(name: appKeyType) else {
            throw InputError(description: "unknown key type '\(appKeyType)'")
        }
        guard let settingsByte = UInt8(settings, radix: 16) else {
            throw InputError(description: "--settings is one hex byte")
        }
        let picc = noAuth ? nil : try keys.piccKey()
        try await withDESFire(global) { client in
            try await enter(client, aid: .picc, keyNumber: 0, key: picc, method: method)
            try await client.createApplication(aid, settings: settingsByte, keyCount: keyCount, keyType: type)
        }
        if global.json {
            try Output.json(DESFireOutput.ApplicationCreated(aid: "\(aid)", keyCount: keyCount, keyType: "\(type)"))
        } else {
            Output.standardOutput("application \(aid) created")
        }
    }
}

struct DESFireCreateFile: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "create-file",
        abstract: "Create a standard data file (authenticates with the application key when given).")
    @OptionGroup(title: "Global Options") var global: GlobalOptions
    @OptionGroup var application: DESFireApplicationOption
    @OptionGroup var keys: DESFireKeyOptions
    @Option(help: "File number 0-31.") var file: UInt8
    @Option(help: "Size in bytes.") var size: Int
    @Option(help: "plain, mac or enc.") var comm: String = "plain"
    @Option(
        help: ArgumentHelp(
            "Access rights as 4 hex digits: read, write, read&write, change (E free, F never).", valueName: "HEX"))
    var access: String = "0000"
    @Flag(help: "Create a backup data file instead.") var backup = false
    @OptionGroup var diversification: DESFireDiversificationOptions
    @OptionGroup var readerKeys: DESFireReaderKeyOptions
    func run() async throws {
        if readerKeys.isRequested { return try await runOnReader() }
        let method = try keys.method()
        let aid = try application.aid()
        let mode = try parseCommMode(comm)
        guard access.count == 4, let rights = UInt16(access, radix: 16) else {
            throw InputError(description: "--access is 4 hex digits")
        }
        let key = try await keys.key()
        _ = try diversification.diversification(master: key, aid: aid)
        try await withDESFire(global) { [keys, diversification] client, session in
            try await enter(
                client, session: session, aid: aid, keys: keys, key: key, diversification: diversification,
                method: method)
            try await client.createDataFile(
                file: file, size: size, commMode: mode, accessRights: DESFireAccessRights(rawValue: rights),
                backup: backup)
        }
        if global.json {
            try Output.json(DESFireOutput.FileCreated(aid: "\(aid)", file: file, size: size, comm: "\(mode)"))
        } else {
            Output.standardOutput("file \(file) created in \(aid)")
        }
    }
}

struct DESFireFileSettingsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "file-settings", abstract: "A file's type, comm mode, access rights and size.")
    @OptionGroup(title: "Global Options") var global: GlobalOptions
    @OptionGroup var application: DESFireApplicationOption
    @OptionGroup var keys: DESFireKeyOptions
    @Option(help: "File number 0-31.") var file: UInt8
    @OptionGroup var diversification: DESFireDiversificationOptions
    func run() async throws {
        let method = try keys.method()
        let aid = try application.aid()
        let key = try await keys.key()
        _ = try diversification.diversification(master: key, aid: aid)
        let settings = try await withDESFire(global) { [keys, diversification] client, session in
            try await enter(
                client, session: session, aid: aid, keys: keys, key: key, diversification: diversification,
                method: method)
            return try await client.getFileSettings(file: file)
        }
        guard global.json else { return Output.standardOutput("\(settings)") }
        try Output.json(DESFireOutput.FileSettings(file: file, settings: settings))
    }
}

struct DESFireRead: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "read",
        abstract:
            "Read a standard or backup file. Prints the data as text when it is printable (trailing zero bytes dropped), else hex."
    )
    @OptionGroup(title: "Global Options") var global: GlobalOptions
    @OptionGroup var application: DESFireApplicationOption
    @OptionGroup var keys: DESFireKeyOptions
    @Option(help: "File number 0-31.") var file: UInt8
    @Option(help: "First byte.") var offset: Int = 0
    @Option(help: "Number of bytes (0: to the end of the file).") var length: Int = 0
    @Option(help: "Force the comm mode: plain, mac or enc (default: from the file's settings).") var comm: String?
    @Flag(help: "Always print hex.") var hex = false
    @OptionGroup var diversification: DESFireDiversificationOptions
    @OptionGroup var readerKeys: DESFireReaderKeyOptions
    func run() async throws {
        if readerKeys.isRequested { return try await runOnReader() }
        let method = try keys.method()
        let aid = try application.aid()
        let mode = try comm.map(parseCommMode)
        let key = try await keys.key()
        _ = try diversification.diversification(master: key, aid: aid)
        let data = try await withDESFire(global) { [keys, diversification] client, session in
            try await enter(
                client, session: session, aid: aid, keys: keys, key: key, diversification: diversification,
                method: method)
            return try await client.readData(file: file, offset: offset, length: length, commMode: mode)
        }
        let output = DESFireOutput.FileData(data)
        if global.json {
            try Output.json(output)
        } else {
            Output.standardOutput(hex ? output.data : output.text ?? output.data)
        }
    }
}

struct DESFireWrite: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "write", abstract: "Write a standard or backup file (commits for backup files).")
    @OptionGroup(title: "Global Options") var global: GlobalOptions
    @OptionGroup var application: DESFireApplicationOption
    @OptionGroup var keys: DESFireKeyOptions
    @OptionGroup var input: DESFireDataOptions
    @Option(help: "File number 0-31.") var file: UInt8
    @Option(help: "First byte.") var offset: Int = 0
    @Option(help: "Force the comm mode: plain, mac or enc (default: from the file's settings).") var comm: String?
    @OptionGroup var diversification: DESFireDiversificationOptions
    @OptionGroup var readerKeys: DESFireReaderKeyOptions
    func run() async throws {
        if readerKeys.isRequested { return try await runOnReader() }
        let method = try keys.method()
        let aid = try application.aid()
        let bytes = try input.bytes()
        let mode = try comm.map(parseCommMode)
        let key = try await keys.key()
        _ = try diversification.diversification(master: key, aid: aid)
        try await withDESFire(global) { [keys, diversification] client, session in
            try await enter(
                client, session: session, aid: aid, keys: keys, key: key, diversification: diversification,
                method: method)
            let settings = try await client.getFileSettings(file: file)
            try await client.writeData(file: file, offset: offset, data: bytes, commMode: mode)
            if case .backup = settings.kind { try await client.commitTransaction() }
        }
        if global.json {
            try Output.json(DESFireOutput.Written(written: bytes.count))
        } else {
            Output.standardOutput("\(bytes.count) bytes written")
        }
    }
}

struct DESFireChangeKey: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "change-key",
        abstract: "Change a key of an application (or the PICC master key with --aid 000000).",
        discussion:
            "Authenticates with --key (key --key-no; at the PICC level --picc-key when --key is absent) and changes key --change-key-no to --new-key. Changing another key needs its current value in --old-key."
    )
    @OptionGroup(title: "Global Options") var global: GlobalOptions
    @OptionGroup var application: DESFireApplicationOption
    @OptionGroup var keys: DESFireKeyOptions
    @Option(name: .customLong("change-key-no"), help: "Key number to change (default: the authenticated one).")
    var changeKeyNumber: UInt8?
    @Option(name: .customLong("new-key"), help: ArgumentHelp("New key in hex.", valueName: "HEX")) var newKeyHex:
        String?
    @Option(name: .customLong("new-key-ascii"), help: ArgumentHelp("New key as ASCII text.", valueName: "TEXT"))
    var newKeyASCII: String?
    @Option(name: .customLong("new-key-slot"), help: ArgumentHelp("New key from key store slot.", valueName: "N"))
    var newKeySlot: Int?
    @Option(name: .customLong("new-key-type"), help: "Type of the new key (default from the length).") var newKeyType:
        String?
    @Option(name: .customLong("new-key-version"), help: "Version of the new key.") var newKeyVersion: UInt8?
    @Option(
        name: .customLong("old-key"),
        help: ArgumentHelp(
            "Current value of the key being changed (when it is not the authenticated one).", valueName: "HEX"))
    var oldKeyHex: String?
    @OptionGroup var diversification: DESFireDiversificationOptions
    @OptionGroup var readerKeys: DESFireReaderKeyOptions
    @OptionGroup var changed: DESFireChangedReaderKeyOptions
    func run() async throws {
        if readerKeys.isRequested || changed.isRequested { return try await runOnReader() }
        let method = try keys.method()
        let aid = try application.aid()
        guard
            let given = try await DESFireKeyOptions.resolve(
                hex: newKeyHex, ascii: newKeyASCII, slot: newKeySlot, type: newKeyType,
                store: keys.keyStore, option: "--new-key")
        else {
            throw InputError(description: "give the new key with --new-key, --new-key-ascii or --new-key-slot")
        }
        let newKey = try DESFireKey(
            type: given.type, bytes: given.bytes, version: newKeyVersion ?? (given.type == .aes ? given.version : nil))
        let authKey = try await keys.key() ?? (aid == .picc ? keys.piccKey() : nil)
        guard let authKey else {
            throw InputError(description: "give the authentication key with --key, --key-ascii or --key-slot")
        }
        let oldKey = try oldKeyHex.map {
            try DESFireKeyOptions.parse(
                hex: $0, type: newKeyType ?? (newKey.type == .des ? "des" : newKey.type.rawValue), option: "--old-key")
        }
        let target = changeKeyNumber ?? keys.keyNumber
        _ = try diversification.diversification(master: authKey, aid: aid)
        try await withDESFire(global) { [keys, diversification] client, session in
            try await enter(
                client, session: session, aid: aid, keys: keys, key: authKey, diversification: diversification,
                method: method)
            try await client.changeKey(keyNumber: target, to: newKey, oldKey: oldKey)
        }
        if global.json {
            try Output.json(
                DESFireOutput.KeyChanged(
                    aid: "\(aid)", keyNo: target, keyType: "\(newKey.type)", version: newKey.version))
        } else {
            Output.standardOutput("key \(target) of \(aid) changed (\(newKey))")
        }
    }
}

struct DESFireUID: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "uid", abstract: "The real UID (GetCardUID; authenticates with --key at --aid, or --picc-key).")
    @OptionGroup(title: "Global Options") var global: GlobalOptions
    @OptionGroup var application: DESFireApplicationOption
    @OptionGroup var keys: DESFireKeyOptions
    func run() async throws {
        let method = try keys.method()
        let aid = try application.aid()
        let key = try await keys.key() ?? keys.piccKey()
        let uid = try await withDESFire(global) { client in
            try await enter(client, aid: aid, keyNumber: keys.keyNumber, key: key, method: method)
            return try await client.getCardUID()
        }
        if global.json {
            try Output.json(DESFireOutput.UID(uid: uid.hexString))
        } else {
            Output.standardOutput(uid.hexString)
        }
    }
}

struct DESFireVersionCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "version", abstract: "GetVersion: hardware, software, UID, production.")
    @OptionGroup(title: "Global Options") var global: GlobalOptions
    func run() async throws {
        let version = try await withDESFire(global) { client in try await client.getVersion() }
        if global.json {
            try Output.json(DESFireOutput.Version(version))
        } else {
            Output.standardOutput("\(version)")
        }
    }
}

struct DESFireApps: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "apps", abstract: "Application IDs (authenticates with --picc-key only when given).")
    @OptionGroup(title: "Global Options") var global: GlobalOptions
    @OptionGroup var keys: DESFireKeyOptions
    func run() async throws {
        let method = try keys.method()
        let key = keys.piccKeyHex == nil ? nil : try keys.piccKey()
        let aids = try await withDESFire(global) { client in
            try await enter(client, aid: .picc, keyNumber: 0, key: key, method: method)
            return try await client.getApplicationIDs()
        }
        if global.json {
            try Output.json(DESFireOutput.Applications(applications: aids.map { "\($0)" }))
        } else {
            for aid in aids { Output.standardOutput("\(aid)") }
        }
    }
}

struct DESFireFiles: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "files", abstract: "File numbers of an application (authenticates when a key is given).")
    @OptionGroup(title: "Global Options") var global: GlobalOptions
    @OptionGroup var application: DESFireApplicationOption
    @OptionGroup var keys: DESFireKeyOptions
    @OptionGroup var diversification: DESFireDiversificationOptions
    func run() async throws {
        let method = try keys.method()
        let aid = try application.aid()
        let key = try await keys.key()
        _ = try diversification.diversification(master: key, aid: aid)
        let files = try await withDESFire(global) { [keys, diversification] client, session in
            try await enter(
                client, session: session, aid: aid, keys: keys, key: key, diversification: diversification,
                method: method)
            return try await client.getFileIDs()
        }
        if global.json {
            try Output.json(DESFireOutput.Files(files: files))
        } else {
            for file in files { Output.standardOutput("\(file)") }
        }
    }
}
