import ArgumentParser
import CardFlow
import CardFlowTONCard
import Foundation

/// Options every `ton` subcommand takes: the global ones and the key store.
struct TONOptions: ParsableArguments {
    @OptionGroup(title: "Global Options") var global: GlobalOptions
    @OptionGroup var store: KeyCommand.StoreOptions

    func hmacKeys() throws -> TONHmacKeyStore {
        TONHmacKeyStore(store: try store.open())
    }

    /// Runs `body` with a wallet on the primary reader's card and prints its message.
    func run(_ body: @escaping @Sendable (TONWallet) async throws -> String) async throws {
        try await report {
            let keys = try hmacKeys()
            return try await ReaderConnection.withPrimarySession(global) { session in
                await session.addRedaction(TONWallet.redaction)
                return try await body(TONWallet(channel: session, hmacKeys: keys))
            }
        }
    }

    /// Prints the message `body` returns (as `{"message":…,"status":"ok"}` with --json).
    func report(_ body: () async throws -> String) async throws {
        try await reportJSON {
            let message = try await body()
            return (TONJSON.success(message), message)
        }
    }

    /// Prints `body`'s JSON or text; a ``TONError`` becomes its JSON (with --json) and exit 1
    /// (card) or 2 (bad input).
    func reportJSON(_ body: () async throws -> (json: String, text: String)) async throws {
        do {
            let result = try await body()
            Output.standardOutput(global.json ? result.json : result.text)
        } catch {
            let underlying = (error as? FlowError)?.underlying ?? error
            guard let failure = underlying as? TONError else { throw underlying }
            if global.json {
                Output.standardOutput(failure.json)
            } else {
                Output.standardError("error: \(failure)")
            }
            let inputError =
                (failure.code.map { (10_000..<20_000).contains($0) || (30_000..<40_000).contains($0) }) ?? false
            throw ExitCode(inputError ? ExitStatus.usage.rawValue : ExitStatus.cardError.rawValue)
        }
    }
}

/// `--password HEX --common-secret HEX --iv HEX`.
struct TONActivationOptions: ParsableArguments {
    @Option(help: ArgumentHelp("Activation password, 128 bytes in hex.", valueName: "HEX")) var password: String
    @Option(name: .customLong("common-secret"), help: ArgumentHelp("Common secret, 32 bytes in hex.", valueName: "HEX"))
    var commonSecret: String
    @Option(help: ArgumentHelp("Initial vector, 16 bytes in hex (activate only).", valueName: "HEX")) var iv: String =
        String(repeating: "0", count: 32)

    func data() throws -> TONActivationData {
        try TONActivationData(passwordHex: password, commonSecretHex: commonSecret, ivHex: iv)
    }
}

/// `cardctl ton keychain …`.
struct TONKeychainCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "keychain", abstract: "The card keychain: keys up to 8192 bytes, 1023 keys, 32767 bytes in all.",
        subcommands: [
            Add.self, Get.self, Change.self, Delete.self, List.self, Info.self, Reset.self, FinishDelete.self,
        ])

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "add", abstract: "Add a key; prints its id (HMAC).")
        @OptionGroup var options: TONOptions
        @Option(help: ArgumentHelp("The key in hex.", valueName: "HEX")) var key: String

        func run() async throws {
            try await options.run { wallet in try await wallet.addKey(try TONKeychainLimits.key(hex: key)).lowercaseHex
            }
        }
    }

    struct Get: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "get", abstract: "Read the key with an id.")
        @OptionGroup var options: TONOptions
        @Option(help: ArgumentHelp("The key id (64 hex characters).", valueName: "HEX")) var hmac: String

        func run() async throws {
            try await options.run { wallet in
                try await wallet.key(hmac: try TONKeychainLimits.keyHmac(hex: hmac)).lowercaseHex
            }
        }
    }

    struct Change: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "change", abstract: "Replace a key by one of the same length; prints the new id.")
        @OptionGroup var options: TONOptions
        @Option(help: ArgumentHelp("The id of the key to replace.", valueName: "HEX")) var hmac: String
        @Option(help: ArgumentHelp("The new key in hex.", valueName: "HEX")) var key: String

        func run() async throws {
            try await options.run { wallet in
                let newKey = try TONKeychainLimits.key(hex: key)
                return try await wallet.changeKey(newKey, oldHmac: try TONKeychainLimits.keyHmac(hex: hmac))
                    .lowercaseHex
            }
        }
    }

    struct Delete: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "delete", abstract: "Delete a key; prints the number of keys left.")
        @OptionGroup var options: TONOptions
        @Option(help: ArgumentHelp("The key id.", valueName: "HEX")) var hmac: String

        func run() async throws {
            try await options.run { wallet in
                String(try await wallet.deleteKey(hmac: try TONKeychainLimits.keyHmac(hex: hmac)))
            }
        }
    }

    struct FinishDelete: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "finish-delete", abstract: "Finish a delete the card was lifted from.")
        @OptionGroup var options: TONOptions

        func run() async throws {
            try await options.run { wallet in String(try await wallet.finishDeleteKeyAfterInterruption()) }
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "list", abstract: "Ids and lengths of all keys.")
        @OptionGroup var options: TONOptions

        func run() async throws {
            try await options.reportJSON {
                let hmacKeys = try options.hmacKeys()
                let keys = try await ReaderConnection.withPrimarySession(options.global) { session in
                    await session.addRedaction(TONWallet.redaction)
                    return try await TONWallet(channel: session, hmacKeys: hmacKeys).keychainKeys()
                }
                return (
                    TONKeyInfo.json(keys), keys.map { "\($0.hmac.lowercaseHex) \($0.length)" }.joined(separator: "\n")
                )
            }
        }
    }

    struct Info: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "info", abstract: "Number of keys, occupied and free bytes.")
        @OptionGroup var options: TONOptions

        func run() async throws {
            try await options.reportJSON {
                let hmacKeys = try options.hmacKeys()
                let info = try await ReaderConnection.withPrimarySession(options.global) { session in
                    await session.addRedaction(TONWallet.redaction)
                    return try await TONWallet(channel: session, hmacKeys: hmacKeys).keychainInfo()
                }
                return (
                    info.json, "\(info.numberOfKeys) keys, \(info.occupiedSize) bytes used, \(info.freeSize) bytes free"
                )
            }
        }
    }

    struct Reset: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "reset", abstract: "Delete every key.")
        @OptionGroup var options: TONOptions

        func run() async throws {
            try await options.run { wallet in
                try await wallet.resetKeychain()
                return "done"
            }
        }
    }
}

/// `cardctl ton recovery …`.
struct TONRecoveryCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "recovery", abstract: "Recovery data (up to 2048 bytes, no PIN or HMAC).",
        subcommands: [SetData.self, Get.self, Reset.self, Status.self])

    struct SetData: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "set", abstract: "Store recovery data.")
        @OptionGroup var options: TONOptions
        @Option(help: ArgumentHelp("The data in hex.", valueName: "HEX")) var data: String

        func run() async throws {
            try await options.run { wallet in
                let bytes = try TONHexRecovery.bytes(data)
                try await wallet.addRecoveryData(bytes)
                return "done"
            }
        }
    }

    struct Get: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "get", abstract: "Read the recovery data.")
        @OptionGroup var options: TONOptions

        func run() async throws {
            try await options.run { wallet in try await wallet.recoveryData().lowercaseHex }
        }
    }

    struct Reset: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "reset", abstract: "Erase the recovery data.")
        @OptionGroup var options: TONOptions

        func run() async throws {
            try await options.run { wallet in
                try await wallet.resetRecoveryData()
                return "done"
            }
        }
    }

    struct Status: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "status", abstract: "Whether recovery data is set: true / false.")
        @OptionGroup var options: TONOptions

        func run() async throws {
            try await options.run { wallet in String(try await wallet.isRecoveryDataSet()) }
        }
    }
}

/// Recovery data given in hex (30011 not hex, 30012 empty or longer than 4096 characters).
enum TONHexRecovery {
    static func bytes(_ text: String) throws -> [UInt8] {
        guard (2...4096).contains(text.utf8.count), text.utf8.count % 2 == 0 else {
            throw TONError.library(code: 30012)
        }
        guard let bytes = try? [UInt8](hex: text) else { throw TONError.library(code: 30011) }
        return bytes
    }
}
