import ArgumentParser
import CardFlow
import CardFlowDESFire
import Foundation

/// Options shared by the `desfire` subcommands: application, key sources, data.
struct DESFireKeyOptions: ParsableArguments {
    @Option(
        name: .customLong("key"),
        help: ArgumentHelp("Key in hex (16 bytes: AES unless --key-type says otherwise).", valueName: "HEX"))
    var keyHex: String?
    @Option(name: .customLong("key-ascii"), help: ArgumentHelp("Key as ASCII text.", valueName: "TEXT"))
    var keyASCII: String?
    @Option(
        name: .customLong("key-slot"),
        help: ArgumentHelp("Key from key store slot 0-15 (like uFR's key index).", valueName: "N"))
    var keySlot: Int?
    @Option(
        name: .customLong("key-type"),
        help: ArgumentHelp(
            "aes, des, 2k3des or 3k3des (default from the length: 8 DES, 16 AES, 24 3K3DES).", valueName: "TYPE"))
    var keyType: String?
    @Option(name: .customLong("key-no"), help: "Key number to authenticate with.")
    var keyNumber: UInt8 = 0
    @Option(name: .customLong("key-store"), help: ArgumentHelp("Key store file for --key-slot.", valueName: "PATH"))
    var keyStore: String?
    @Option(
        name: .customLong("picc-key"),
        help: ArgumentHelp("PICC master key in hex (default DES 8 x 00).", valueName: "HEX"))
    var piccKeyHex: String?
    @Option(
        name: .customLong("auth"),
        help: ArgumentHelp(
            "Authentication: auto (AES → AA, DES family → 1A), legacy (0A), iso (1A) or aes (AA).", valueName: "MODE"))
    var auth: String = "auto"
    @Option(
        name: .customLong("picc-key-type"),
        help: ArgumentHelp("Type of --picc-key (default from the length: 8 DES, 16 AES, 24 3K3DES).", valueName: "TYPE")
    )
    var piccKeyType: String?

    /// The authentication command chosen with --auth.
    func method() throws -> DESFireAuthenticationMethod {
        switch auth.lowercased() {
        case "auto": return .automatic
        case "legacy", "0a": return .legacy
        case "iso", "1a": return .iso
        case "aes", "aa": return .aes
        default: throw InputError(description: "--auth is auto, legacy, iso or aes")
        }
    }

    /// The key given with --key, --key-ascii or --key-slot, or nil.
    func key() async throws -> DESFireKey? {
        try await Self.resolve(
            hex: keyHex, ascii: keyASCII, slot: keySlot, type: keyType, store: keyStore, option: "--key")
    }

    /// A key from exactly one of hex, ASCII or a key store slot (nil when none is given).
    static func resolve(hex: String?, ascii: String?, slot: Int?, type: String?, store: String?, option: String)
        async throws -> DESFireKey?
    {
        let given = [hex != nil, ascii != nil, slot != nil].filter { $0 }.count
        guard given <= 1 else {
            throw InputError(description: "give only one of \(option), \(option)-ascii, \(option)-slot")
        }
        if let slot {
            let keyStore = try store.map { FileKeyStore(path: $0) } ?? FileKeyStore()
            return try await DESFireKey(slot: try KeySlot(slot), in: keyStore)
        }
        if let hex { return try Self.parse(hex: hex, type: type, option: option) }
        if let ascii {
            return try DESFireKey(type: try Self.type(type, length: ascii.utf8.count), ascii: ascii)
        }
        return nil
    }

    func requiredKey() async throws -> DESFireKey {
        guard let key = try await key() else {
            throw InputError(description: "give the key with --key, --key-ascii or --key-slot")
        }
        return key
    }

    /// The PICC master key (--picc-key, default DES 8 x 00).
    func piccKey() throws -> DESFireKey {
        guard let piccKeyHex else { return .defaultDES }
        return try Self.parse(hex: piccKeyHex, type: piccKeyType, option: "--picc-key")
    }

    static func parse(hex: String, type: String?, option: String) throws -> DESFireKey {
        let bytes: [UInt8]
        do { bytes = try [UInt8](hex: hex) } catch { throw InputError(description: "\(option) is not hex: \(error)") }
        return try DESFireKey(type: try Self.type(type, length: bytes.count), bytes: bytes)
    }

    static func type(_ name: String?, length: Int) throws -> DESFireKeyType {
        if let name {
            guard let type = DESFireKeyType(name: name) else {
                throw InputError(description: "unknown key type '\(name)' (aes, des, 2k3des, 3k3des)")
            }
            return type
        }
        switch length {
        case 8: return .des
        case 16: return .aes
        case 24: return .threeKey3DES
        default: throw InputError(description: "a key has 8, 16 or 24 bytes, not \(length)")
        }
    }
}

/// `--diversify` and `--system-identifier HEX`: the key given is an AN10922 master key, and the
/// key used on the card is the one derived from the card's UID and the application ID.
struct DESFireDiversificationOptions: ParsableArguments {
    @Flag(
        name: .customLong("diversify"),
        help: ArgumentHelp(
            "The application key given is an AN10922 master key: use the card's own key, derived from its UID and --aid."
        ))
    var diversify = false
    @Option(
        name: .customLong("system-identifier"),
        help: ArgumentHelp(
            "AN10922 system identifier in hex, appended to UID and AID (with --diversify; 0 to 21 bytes).",
            valueName: "HEX"))
    var systemIdentifierHex: String?

    /// The diversification of `master` for application `aid` (nil without --diversify). Checked
    /// before a card is touched.
    func diversification(master: DESFireKey?, aid: DESFireApplicationID) throws -> DESFireKeyDiversification? {
        guard diversify else {
            if systemIdentifierHex != nil { throw InputError(description: "--system-identifier needs --diversify") }
            return nil
        }
        guard let master else {
            throw InputError(description: "--diversify needs the master key (--key, --key-ascii or --key-slot)")
        }
        guard master.type == .aes else { throw InputError(description: "--diversify needs an AES master key") }
        guard aid != .picc else { throw InputError(description: "--diversify derives application keys: give --aid") }
        var identifier: [UInt8] = []
        if let systemIdentifierHex {
            do { identifier = try [UInt8](hex: systemIdentifierHex) } catch {
                throw InputError(description: "--system-identifier is not hex: \(error)")
            }
        }
        return try DESFireKeyDiversification(masterKey: master, systemIdentifier: identifier)
    }

    /// The key to authenticate to `aid` with on this card: `key` itself, or with --diversify the
    /// AN10922 key derived from the card's UID and `aid`.
    func cardKey(
        _ key: DESFireKey?, aid: DESFireApplicationID, client: DESFireClient, session: CardSession,
        keys: DESFireKeyOptions, method: DESFireAuthenticationMethod
    ) async throws -> DESFireKey? {
        guard let diversification = try diversification(master: key, aid: aid) else { return key }
        let uid = try await Self.cardUID(client: client, session: session, piccKey: try keys.piccKey(), method: method)
        return try diversification.key(uid: uid, application: aid)
    }

    /// The UID AN10922 takes: the anti-collision UID the reader reports (no key needed), or, when
    /// the card shows a random one or the reader reports none, GetCardUID after authenticating
    /// with the PICC master key (as libfreefare's `mifare_key_deriver_update_uid` does).
    static func cardUID(
        client: DESFireClient, session: CardSession, piccKey: DESFireKey, method: DESFireAuthenticationMethod
    ) async throws -> [UInt8] {
        if let uid = await session.identity.uid, uid.count == 7 || uid.count == 10, !DESFireIdentity.isRandomUID(uid) {
            return uid
        }
        try await client.selectApplication(.picc)
        try await client.authenticate(keyNumber: 0, key: piccKey, method: method)
        return try await client.getCardUID()
    }
}

/// `--aid HEX`.
struct DESFireApplicationOption: ParsableArguments {
    @Option(
        name: .customLong("aid"),
        help: ArgumentHelp("Application ID, 6 hex digits (000000: PICC level).", valueName: "HEX"))
    var aidHex: String = "000000"

    func aid() throws -> DESFireApplicationID { try DESFireApplicationID(hex: aidHex) }
}

/// `--data HEX` or `--text STRING`.
struct DESFireDataOptions: ParsableArguments {
    @Option(name: .customLong("data"), help: ArgumentHelp("Data in hex.", valueName: "HEX"))
    var dataHex: String?
    @Option(name: .customLong("text"), help: ArgumentHelp("Data as UTF-8 text.", valueName: "STRING"))
    var text: String?

    func bytes() throws -> [UInt8] {
        switch (dataHex, text) {
        case (let hex?, nil): return try [UInt8](hex: hex)
        case (nil, let text?): return Array(text.utf8)
        default: throw InputError(description: "give the data with exactly one of --data or --text")
        }
    }
}
