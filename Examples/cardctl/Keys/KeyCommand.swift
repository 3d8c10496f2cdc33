import ArgumentParser
import CardFlow
import Foundation

/// `cardctl key …`: the symmetric key slots and named secrets in a key store file.
///
/// Key bytes go in and never come out: no subcommand prints them.
struct KeyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "key",
        abstract: "Manage the key store: symmetric key slots 0...15 and named secrets.",
        discussion: """
            The key store is a JSON file only its owner may read (mode 0600), by default \
            $XDG_CONFIG_HOME/cardflow/keys.json or ~/.config/cardflow/keys.json; --key-store PATH picks another. \
            Key bytes are never printed. Give HEX as - to read it from standard input instead of the command line.
            """,
        subcommands: [SetKey.self, SetSecret.self, List.self, DeleteKey.self, DeleteSecret.self]
    )

    // Also accepted between `key` and the subcommand name (`cardctl key --key-store PATH list`);
    // the subcommands read it through their own option groups. `--json` is the root's (JSONOption).
    @OptionGroup(visibility: .hidden) var store: StoreOptions

    /// `--key-store PATH`, accepted by every `key` subcommand.
    struct StoreOptions: ParsableArguments {
        @Option(
            name: .customLong("key-store"),
            help: ArgumentHelp(
                "Key store file (default: $XDG_CONFIG_HOME/cardflow/keys.json or ~/.config/cardflow/keys.json).",
                valueName: "PATH"))
        var path: String?

        func open() throws -> FileKeyStore {
            if let path {
                guard !path.isEmpty else { throw InputError(description: "--key-store needs a path") }
                return FileKeyStore(path: path)
            }
            return try FileKeyStore()
        }
    }

    /// `cardctl key set SLOT ALGORITHM HEX [--version N]`.
    struct SetKey: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "set", abstract: "Store a symmetric key in a slot, replacing any key there.")

        @OptionGroup var store: StoreOptions

        @Option(name: .customLong("version"), help: ArgumentHelp("Key version, 0...255.", valueName: "N"))
        var keyVersion: UInt8 = 0

        @Argument(help: ArgumentHelp("Key slot, 0...15.", valueName: "SLOT"))
        var slot: Int

        @Argument(
            help: ArgumentHelp(
                "Algorithm: \(SymmetricKeyAlgorithm.allCases.map(\.rawValue).joined(separator: ", ")) (or DES, 2K3DES, 3K3DES, AES-128).",
                valueName: "ALGORITHM"))
        var algorithm: String

        @Argument(
            help: ArgumentHelp(
                "Key bytes in hex (8, 16 or 24 bytes as the algorithm needs), or - for stdin.", valueName: "HEX"))
        var hex: String

        func run() async throws {
            let slot = try KeySlot(slot)
            guard let algorithm = SymmetricKeyAlgorithm(name: algorithm) else {
                throw InputError(
                    description: "unknown algorithm '\(algorithm)'; use one of "
                        + SymmetricKeyAlgorithm.allCases.map(\.rawValue).joined(separator: ", "))
            }
            let key = try StoredKey(algorithm: algorithm, bytes: try KeyCommand.bytes(hex), version: keyVersion)
            let keyStore = try store.open()
            try await keyStore.setKey(key, in: slot)
            Output.standardOutput(
                "\(KeySlotSummary(slot: slot, algorithm: key.algorithm, version: key.version)) stored in \(keyStore.path)"
            )
        }
    }

    /// `cardctl key set-secret NAME HEX`.
    struct SetSecret: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "set-secret", abstract: "Store a named secret, replacing any secret of that name.")

        @OptionGroup var store: StoreOptions

        @Argument(
            help: ArgumentHelp(
                "Secret name: ASCII letters, digits and . _ - : @ + / (e.g. ton.hmac.04A1B2C3).", valueName: "NAME"))
        var name: String

        @Argument(help: ArgumentHelp("Secret bytes in hex, or - for stdin.", valueName: "HEX"))
        var hex: String

        func run() async throws {
            let secret = try SecretBytes(try KeyCommand.bytes(hex))
            let keyStore = try store.open()
            try await keyStore.setSecret(secret, named: name)
            Output.standardOutput("\(SecretSummary(name: name, length: secret.count)) stored in \(keyStore.path)")
        }
    }

    /// `cardctl key list [--json]`.
    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "list", abstract: "List filled key slots and secret names (never key bytes).")

        @OptionGroup var store: StoreOptions

        @OptionGroup var output: JSONOption

        struct Listing: Encodable {
            let path: String
            let keys: [KeySlotSummary]
            let secrets: [SecretSummary]
        }

        func run() async throws {
            let keyStore = try store.open()
            let listing = try await keyStore.listing()
            if output.json {
                try Output.sortedJSON(Listing(path: keyStore.path, keys: listing.keys, secrets: listing.secrets))
                return
            }
            Output.standardOutput("key store \(keyStore.path)")
            if listing.isEmpty { Output.standardOutput("  (empty)") }
            for key in listing.keys { Output.standardOutput("  \(key)") }
            for secret in listing.secrets { Output.standardOutput("  secret \(secret)") }
        }
    }

    /// `cardctl key delete SLOT`.
    struct DeleteKey: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "delete", abstract: "Empty a key slot.")

        @OptionGroup var store: StoreOptions

        @Argument(help: ArgumentHelp("Key slot, 0...15.", valueName: "SLOT"))
        var slot: Int

        func run() async throws {
            let slot = try KeySlot(slot)
            let keyStore = try store.open()
            try await keyStore.deleteKey(in: slot)
            Output.standardOutput("\(slot) deleted from \(keyStore.path)")
        }
    }

    /// `cardctl key delete-secret NAME`.
    struct DeleteSecret: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "delete-secret", abstract: "Remove a named secret.")

        @OptionGroup var store: StoreOptions

        @Argument(help: ArgumentHelp("Secret name.", valueName: "NAME"))
        var name: String

        func run() async throws {
            let keyStore = try store.open()
            try await keyStore.deleteSecret(named: name)
            Output.standardOutput("secret \(name) deleted from \(keyStore.path)")
        }
    }

    /// The bytes of a HEX argument; `-` reads the hex text from standard input, which keeps key
    /// bytes out of shell history and process listings.
    static func bytes(_ argument: String) throws -> [UInt8] {
        guard argument == "-" else { return try [UInt8](hex: argument) }
        let input = FileHandle.standardInput.readDataToEndOfFile()
        return try [UInt8](hex: String(decoding: input, as: UTF8.self))
    }
}
