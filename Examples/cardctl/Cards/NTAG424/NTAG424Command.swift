import ArgumentParser
import CardFlow
import CardFlowDESFire
import Foundation

/// `cardctl ntag424 info|read|sun|verify|change-key`: NTAG 424 DNA tags with EV2 secure messaging.
struct NTAG424Command: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ntag424",
        abstract:
            "NTAG 424 DNA: version and UID, the tag as a phone reads it, SUN (SDM) set-up and server-side verification, keys.",
        subcommands: [Info.self, Read.self, SUN.self, Verify.self, VerifyURL.self, Provision.self, ChangeKey.self])

    /// The key authenticated with (AES; `--key`, `--key-ascii` or `--key-slot`) and its number.
    struct KeyOptions: ParsableArguments {
        @Option(
            name: .customLong("key"),
            help: ArgumentHelp("AES key in hex (default 16 × 00, the factory key).", valueName: "HEX"))
        var keyHex: String?
        @Option(name: .customLong("key-ascii"), help: ArgumentHelp("Key as ASCII text.", valueName: "TEXT"))
        var keyASCII: String?
        @Option(name: .customLong("key-slot"), help: ArgumentHelp("Key from key store slot 0-15.", valueName: "N"))
        var keySlot: Int?
        @Option(name: .customLong("key-store"), help: ArgumentHelp("Key store file for --key-slot.", valueName: "PATH"))
        var keyStore: String?
        @Option(name: .customLong("key-no"), help: "Key number 0-4 to authenticate with.")
        var keyNumber: UInt8 = 0

        func validate() throws {
            guard keyNumber <= 4 else { throw ValidationError("--key-no \(keyNumber) is outside 0...4") }
        }

        func key() async throws -> DESFireKey {
            try await DESFireKeyOptions.resolve(
                hex: keyHex, ascii: keyASCII, slot: keySlot, type: "aes", store: keyStore,
                option: "--key")
                ?? DESFireKey(type: .aes, bytes: [UInt8](repeating: 0, count: 16))
        }
    }

    /// Selects the NDEF application and authenticates.
    static func withTag<T: Sendable>(
        _ global: GlobalOptions, keys: KeyOptions?,
        _ body: @escaping @Sendable (NTAG424Client) async throws -> T
    ) async throws -> T {
        let key = try await keys?.key()
        let keyNumber = keys?.keyNumber ?? 0
        return try await ReaderConnection.withPrimarySession(global) { session in
            let tag = NTAG424Client(channel: session)
            try await tag.selectNDEFApplication()
            if let key { try await tag.authenticate(keyNumber: keyNumber, key: key) }
            return try await body(tag)
        }
    }

    static func parseKey(_ hex: String, option: String) throws -> [UInt8] {
        let bytes = try [UInt8](hex: hex)
        guard bytes.count == 16 else {
            throw InputError(description: "\(option) is an AES-128 key of 16 bytes, not \(bytes.count)")
        }
        return bytes
    }

    struct Info: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "info",
            abstract: "GetVersion, the real UID, file settings and the SUN read counter (authenticates with --key).")
        @OptionGroup(title: "Global Options") var global: GlobalOptions
        @OptionGroup var keys: KeyOptions

        func run() async throws {
            let key = try await keys.key()
            let keyNumber = keys.keyNumber
            let (version, uid, settings, counter) = try await withTag(global, keys: nil) { tag in
                // Before authenticating: in a session GetVersion would travel in CommMode.MAC.
                let version = try await tag.getVersion()
                try await tag.authenticate(keyNumber: keyNumber, key: key)
                let uid = try await tag.getCardUID()
                var settings: [(NTAG424File, NTAG424FileSettings)] = []
                for file in NTAG424File.allCases { settings.append((file, try await tag.getFileSettings(file))) }
                // The counter needs SDM on and the SDMCtrRet key: absent otherwise.
                let counter = settings[1].1.sdm == nil ? nil : try? await tag.getFileCounters(.ndef)
                return (version, uid, settings, counter)
            }
            if global.json {
                try Output.json(
                    NTAG424Output.Info(
                        files: settings.map { file, value in
                            NTAG424Output.Info.File(file: file.rawValue, settings: "\(value)", size: value.size ?? 0)
                        },
                        sdmReadCounter: counter, uid: uid.hexString, version: version.hexString))
            } else {
                Output.standardOutput("UID      \(uid.hexString)")
                Output.standardOutput("version  \(version.hexString)")
                for (file, value) in settings { Output.standardOutput("\(file): \(value)") }
                if let counter { Output.standardOutput("SUN read counter \(counter)") }
            }
        }
    }

    struct Read: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "read",
            abstract: "Read the NDEF file as a phone does (ISO commands, no key): SUN data is mirrored fresh.")
        @OptionGroup(title: "Global Options") var global: GlobalOptions

        func run() async throws {
            let file = try await withTag(global, keys: nil) { tag in
                try await tag.isoSelectFile(.ndef)
                return try await tag.isoReadBinary(offset: 0, length: 0)
            }
            let text = NTAG424SUNTemplate.uri(inNDEFFile: file)
            if global.json {
                try Output.json(NTAG424Output.NDEFFile(file: file.hexString, uri: text))
            } else {
                Output.standardOutput(text ?? file.hexString)
            }
        }
    }

    struct SUN: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "sun",
            abstract:
                "Write a URL with SUN placeholders to the NDEF file and switch SDM on: every tap then mirrors e=PICCData and c=SDMMAC.",
            discussion: """
                Authenticates with --key (key 0, the file's change key). The URL gets ?e=<32 hex digits>&c=<16 hex digits> \
                (or &e=… when it has a query already): PICCData enciphered with --meta-key-no, SDMMAC with --file-key-no. \
                Change those keys first (cardctl ntag424 change-key); verify taps with cardctl ntag424 verify.
                """)
        @OptionGroup(title: "Global Options") var global: GlobalOptions
        @OptionGroup var keys: KeyOptions
        @Option(help: "The URL, with or without https://.") var url: String
        @Option(name: .customLong("meta-key-no"), help: "SDMMetaReadKey: the key that enciphers PICCData.")
        var metaKeyNumber: UInt8 = 2
        @Option(name: .customLong("file-key-no"), help: "SDMFileReadKey: the key of the SDMMAC.") var fileKeyNumber:
            UInt8 = 1

        func validate() throws {
            guard metaKeyNumber <= 4, fileKeyNumber <= 4 else { throw ValidationError("key numbers are 0...4") }
        }

        func run() async throws {
            let template = try NTAG424SUNTemplate(url: url)
            let settings = template.fileSettings(metaReadKey: metaKeyNumber, fileReadKey: fileKeyNumber)
            try await withTag(global, keys: keys) { tag in
                try await tag.writeData(.ndef, data: template.ndefFile)
                try await tag.changeFileSettings(.ndef, to: settings)
            }
            if global.json {
                try Output.json(
                    NTAG424Output.SUNEnabled(piccDataOffset: template.piccDataOffset, macOffset: template.macOffset))
            } else {
                Output.standardOutput(
                    "SUN on: PICCData at \(template.piccDataOffset), SDMMAC at \(template.macOffset)")
            }
        }
    }

    struct Verify: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "verify",
            abstract:
                "Check a tapped SUN URL as a server does (no tag needed): prints the UID and the read counter, or why it is forged."
        )
        @OptionGroup(title: "Global Options") var global: GlobalOptions
        @Argument(help: "The URL the tag gave (with e= and c=).") var url: String
        @Option(name: .customLong("meta-key"), help: ArgumentHelp("SDMMetaReadKey in hex.", valueName: "HEX"))
        var metaKey: String
        @Option(name: .customLong("file-key"), help: ArgumentHelp("SDMFileReadKey in hex.", valueName: "HEX"))
        var fileKey: String

        func run() async throws {
            // The same parameter names as verify-url (e/picc_data, c/cmac, uid/ctr), without the replay check.
            let parameters = try NTAG424SUNURLParameters(url: url)
            let verifier = try NTAG424SUNVerifier(
                metaReadKey: try NTAG424Command.parseKey(metaKey, option: "--meta-key"),
                fileReadKey: try NTAG424Command.parseKey(fileKey, option: "--file-key"))
            let message = try verifier.verify(parameters)
            let uid = message.uid?.hexString ?? ""
            let counter = message.readCounter.map(String.init) ?? "null"
            if global.json {
                try Output.json(NTAG424Output.Verified(readCounter: message.readCounter, uid: uid))
            } else {
                Output.standardOutput("valid: UID \(uid), read counter \(counter)")
            }
        }
    }

    struct ChangeKey: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "change-key",
            abstract: "Change key --change-no to --new-key (authenticated with key 0 via --key).")
        @OptionGroup(title: "Global Options") var global: GlobalOptions
        @OptionGroup var keys: KeyOptions
        @Option(name: .customLong("change-no"), help: "The key number to change, 0-4.") var changeNumber: UInt8
        @Option(name: .customLong("new-key"), help: ArgumentHelp("The new AES key in hex.", valueName: "HEX"))
        var newKey: String
        @Option(
            name: .customLong("old-key"),
            help: ArgumentHelp("The key's current value (default 16 × 00); not needed for key 0.", valueName: "HEX"))
        var oldKey: String?
        @Option(name: .customLong("new-version"), help: "The new key's version byte.") var newVersion: UInt8 = 1

        func validate() throws {
            guard changeNumber <= 4 else { throw ValidationError("--change-no \(changeNumber) is outside 0...4") }
        }

        func run() async throws {
            let new = try DESFireKey(
                type: .aes, bytes: try NTAG424Command.parseKey(newKey, option: "--new-key"), version: newVersion)
            let old = try DESFireKey(
                type: .aes,
                bytes: try oldKey.map { try NTAG424Command.parseKey($0, option: "--old-key") }
                    ?? [UInt8](repeating: 0, count: 16))
            let number = changeNumber
            try await withTag(global, keys: keys) { tag in
                try await tag.changeKey(
                    number, to: new, oldKey: number == (await tag.authenticatedKeyNumber) ? nil : old)
            }
            if global.json {
                try Output.json(NTAG424Output.KeyChanged(changed: number, version: newVersion))
            } else {
                Output.standardOutput("key \(number) changed (version \(newVersion))")
            }
        }
    }
}
