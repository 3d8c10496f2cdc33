import ArgumentParser
import CardFlow
import CardFlowTONCard
import Foundation

/// `cardctl ton …`: the TON Labs security card (TonWalletApplet + CoinManager).
///
/// With `--json` every subcommand prints the seed library's JSON: `{"message":…,"status":"ok"}`
/// on success, the error JSON (card status word or library code) on failure.
struct TONCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ton",
        abstract: "TON Labs security card: activation, PIN, Ed25519 keys and signatures, keychain, recovery data.",
        discussion: """
            HMAC keys of activated cards are kept in the key store (see `cardctl key`; --key-store PATH), under \
            ton.hmac.<serial number>, so a card activated in one run can be used in the next. With --json, \
            failures are printed as the seed library's error JSON on standard output too. Exit codes: 1 card \
            error, 2 bad input.
            """,
        subcommands: [
            State.self, Serial.self, Activate.self, CreateHmacKey.self, HmacKeys.self, VerifyPin.self,
            PublicKey.self, Sign.self, TONKeychainCommand.self, TONRecoveryCommand.self, PinTries.self,
            RootKeyStatus.self, GenerateSeed.self,
        ]
    )

    struct State: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "state", abstract: "The applet state.")
        @OptionGroup var options: TONOptions

        func run() async throws {
            try await options.run { wallet in try await wallet.appletState().message }
        }
    }

    struct Serial: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "serial", abstract: "The card's 24-digit serial number.")
        @OptionGroup var options: TONOptions

        func run() async throws {
            try await options.run { wallet in try await wallet.serialNumber().digits }
        }
    }

    struct Activate: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "activate",
            abstract: "Activate the card: seed, hash checks, activation password, PIN; stores the card's HMAC key.")
        @OptionGroup var options: TONOptions
        @OptionGroup var activation: TONActivationOptions
        @Option(help: ArgumentHelp("The PIN to set (4 digits).", valueName: "PIN")) var pin: String = "5555"

        func run() async throws {
            try await options.report {
                let data = try activation.data()
                let pin = try TONPin(self.pin)
                let keys = try options.hmacKeys()
                let connection = try await ReaderConnection.open(
                    options.global, logger: CommandLogging.logger(trace: options.global.trace))
                let reader = try connection.primary
                var policy = options.global.policy(for: reader)
                policy.identity = TONActivation.cardIdentity
                let run = reader.run(TONActivation.flow(activation: data, pin: pin, hmacKeys: keys), policy: policy)
                // Steps and recovery on stderr; a progress bar on a terminal.
                let progress = Task { [json = options.global.json, trace = options.global.trace] in
                    await FlowProgressView.show(run.progress, trace: trace, json: json)
                }
                var failure: (any Error)?
                var state: TONAppletState?
                do { state = try await run.value } catch { failure = error }
                await progress.value
                try await connection.close()
                if let failure { throw (failure as? FlowError)?.underlying ?? failure }
                return state?.message ?? TONActivation.successMessage
            }
        }
    }

    struct CreateHmacKey: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "create-hmac-key",
            abstract: "Recreate a card's HMAC key from its activation data (no card needed).")
        @OptionGroup var options: TONOptions
        @OptionGroup var activation: TONActivationOptions
        @Option(help: ArgumentHelp("The card's serial number (24 digits).", valueName: "SN")) var serial: String

        func run() async throws {
            try await options.report {
                let data = try activation.data()
                let serial = try TONSerialNumber(self.serial)
                try await options.hmacKeys().createKey(from: data, serialNumber: serial)
                return "done"
            }
        }
    }

    struct HmacKeys: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "hmac-keys", abstract: "The serial numbers of cards whose HMAC key is in the key store.")
        @OptionGroup var options: TONOptions

        func run() async throws {
            try await options.reportJSON {
                let serials = try await options.hmacKeys().serialNumbers().map(\.digits)
                if serials.isEmpty {
                    return (TONJSON.success("HMAC-SHA256 keys are not found."), "HMAC-SHA256 keys are not found.")
                }
                return (TONJSON.success(serials), serials.joined(separator: "\n"))
            }
        }
    }

    struct VerifyPin: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "verify-pin", abstract: "Verify the PIN (HMAC-protected).")
        @OptionGroup var options: TONOptions
        @Argument(help: ArgumentHelp("The PIN (4 digits).", valueName: "PIN")) var pin: String

        func run() async throws {
            try await options.run { wallet in
                try await wallet.verifyPin(try TONPin(pin))
                return "done"
            }
        }
    }

    struct PublicKey: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "public-key",
            abstract: "The Ed25519 public key (default path m/44'/396'/0'/0'/0' without --hd-index).")
        @OptionGroup var options: TONOptions
        @Option(name: .customLong("hd-index"), help: ArgumentHelp("HD index (1 to 10 digits).", valueName: "N"))
        var hdIndex: String?

        func run() async throws {
            try await options.run { wallet in
                if let hdIndex { return try await wallet.publicKey(hdIndex: try TONHDIndex(hdIndex)).lowercaseHex }
                return try await wallet.publicKeyForDefaultPath().lowercaseHex
            }
        }
    }

    struct Sign: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "sign",
            abstract: "Verify the PIN and sign data with Ed25519 (default path without --hd-index).")
        @OptionGroup var options: TONOptions
        @Option(help: ArgumentHelp("The PIN (4 digits).", valueName: "PIN")) var pin: String
        @Option(help: ArgumentHelp("Data to sign in hex (at most 189 bytes, 178 with --hd-index).", valueName: "HEX"))
        var data: String
        @Option(name: .customLong("hd-index"), help: ArgumentHelp("HD index (1 to 10 digits).", valueName: "N"))
        var hdIndex: String?

        func run() async throws {
            try await options.run { wallet in
                let pin = try TONPin(self.pin)
                let message = try TONMessage.bytes(hex: data, withIndex: hdIndex != nil)
                if let hdIndex {
                    return try await wallet.verifyPinAndSign(message, hdIndex: try TONHDIndex(hdIndex), pin: pin)
                        .lowercaseHex
                }
                return try await wallet.verifyPinAndSignForDefaultPath(message, pin: pin).lowercaseHex
            }
        }
    }

    struct PinTries: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "pin-tries", abstract: "PIN tries left (or the maximum with --max).")
        @OptionGroup var options: TONOptions
        @Flag(help: "Print the maximum number of tries instead.") var max = false

        func run() async throws {
            try await options.run { wallet in
                String(
                    max ? try await wallet.coinManager.maxPinTries() : try await wallet.coinManager.remainingPinTries())
            }
        }
    }

    struct RootKeyStatus: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "root-key-status", abstract: "Whether the seed exists: generated / not generated.")
        @OptionGroup var options: TONOptions

        func run() async throws {
            try await options.run { wallet in
                TONCoinManager.rootKeyStatusMessage(try await wallet.coinManager.rootKeyStatus())
            }
        }
    }

    struct GenerateSeed: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "generate-seed", abstract: "Generate the seed (CoinManager).")
        @OptionGroup var options: TONOptions
        @Option(help: ArgumentHelp("The current PIN (4 digits).", valueName: "PIN")) var pin: String

        func run() async throws {
            try await options.run { wallet in
                try await wallet.coinManager.generateSeed(pin: try TONPin(pin))
                return "done"
            }
        }
    }
}
