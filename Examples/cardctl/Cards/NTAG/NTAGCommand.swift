import ArgumentParser
import CardFlow
import CardFlowStorageCards
import Foundation

/// `cardctl ntag info|read|write|pwd-set|pwd-auth|counter|signature`: NTAG213/215/216 and
/// MIFARE Ultralight EV1 through the reader's part 3 commands and raw-frame pass-through.
struct NTAGCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ntag",
        abstract: "NTAG213/215/216 and MIFARE Ultralight EV1: pages, password, counter, signature.",
        discussion: """
            The password (4 bytes) and PACK (2 bytes) travel in clear on RF: they keep a tag from being \
            overwritten, they do not keep anyone who listens from learning them. The originality signature is \
            printed, not verified (its curve, secp128r1, is not in swift-crypto). Exit code 1 for a tag that \
            refuses (NAK, wrong password, PACK mismatch), 2 for bad arguments.
            """,
        subcommands: [
            Info.self, Read.self, Write.self, PasswordSet.self, PasswordAuth.self, Counter.self, Signature.self,
        ]
    )

    /// `--password HEX [--pack HEX]`: authenticate before the command.
    struct PasswordOptions: ParsableArguments {
        @Option(help: ArgumentHelp("PWD_AUTH first with this 4-byte password (hex).", valueName: "HEX"))
        var password: String?
        @Option(help: ArgumentHelp("The PACK (2 bytes, hex) the tag must answer.", valueName: "HEX"))
        var pack: String?

        func validate() throws {
            _ = try credentials()
        }

        /// The password and expected PACK, parsed; nil without --password.
        func credentials() throws -> (Type2Password, [UInt8]?)? {
            guard let password else {
                if pack != nil { throw ValidationError("--pack needs --password") }
                return nil
            }
            let expected = try pack.map { try NTAGCommand.hex($0, count: 2, option: "--pack") }
            return (try Type2Password(NTAGCommand.hex(password, count: 4, option: "--password")), expected)
        }
    }

    static func hex(_ text: String, count: Int? = nil, option: String) throws -> [UInt8] {
        guard let bytes = try? [UInt8](hex: text) else { throw ValidationError("\(option) is not hex: \(text)") }
        if let count, bytes.count != count {
            throw ValidationError("\(option) has \(bytes.count) bytes, \(count) expected")
        }
        return bytes
    }

    struct Info: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "info", abstract: "Product, UID, GET_VERSION, configuration and capability container.")
        @OptionGroup(title: "Global Options") var global: GlobalOptions
        @OptionGroup var credentials: PasswordOptions
        @OptionGroup var dialect: ReaderDialectOption

        func run() async throws {
            let info = try await withTag(global, credentials, dialect) { tag in try await NTAGInfoGathering.gather(tag)
            }
            let product = info.product
            if global.json {
                try Output.json(NTAGOutput.Info(info))
                return
            }
            Output.standardOutput(
                "\(product), UID \(info.uid.hexString)" + (info.version.map { ", GET_VERSION \($0.hexString)" } ?? ""))
            Output.standardOutput(
                "\(product.pageCount) pages"
                    + (info.capabilityContainer.map { "; capability container \($0.hexString)" } ?? ""))
            if let configuration = info.configuration {
                let protection =
                    Int(configuration.auth0) >= product.pageCount
                    ? "no password protection"
                    : "password protects \(configuration.protectsReads ? "reads and writes" : "writes") from page "
                        + "\(configuration.auth0)"
                Output.standardOutput(
                    "\(protection); AUTHLIM \(configuration.authenticationLimit)"
                        + (configuration.configurationLocked ? "; configuration locked" : "")
                        + (configuration.counterEnabled ? "; NFC counter on" : ""))
            }
            for missing in info.unavailable { Output.standardOutput("unavailable: \(missing)") }
        }
    }

    struct Read: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "read", abstract: "Read pages (hex).")
        @OptionGroup(title: "Global Options") var global: GlobalOptions
        @OptionGroup var credentials: PasswordOptions
        @OptionGroup var dialect: ReaderDialectOption
        @Option(help: "First page (decimal or 0x hex, 0...255).") var page = NTAGPageNumber(0)
        @Option(help: "Number of pages (default: to the end).") var count: Int?

        func validate() throws {
            if let count, !(1...256).contains(count) { throw ValidationError("--count \(count) is outside 1...256") }
        }

        func run() async throws {
            let page = self.page.value
            let (data, first) = try await withTag(global, credentials, dialect) { tag in
                let pages = tag.product.pageCount
                guard page < pages else {
                    throw InputError(description: "--page \(page) is outside \(tag.product)'s pages 0...\(pages - 1)")
                }
                // A count past the end is refused, not cut (as `classic read` does): nothing is read.
                if let count, page + count > pages {
                    throw InputError(
                        description: "--page \(page) --count \(count) runs past the last page of \(tag.product) "
                            + "(page \(pages - 1)): at most --count \(pages - page) from page \(page)")
                }
                let last = page + (count ?? pages - page) - 1
                return (try await tag.readPages(page...last), page)
            }
            if global.json {
                try Output.json(NTAGOutput.Pages(data: data.hexString, page: first))
            } else {
                Output.standardOutput(data.hexString)
            }
        }
    }

    struct Write: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "write", abstract: "Write whole pages (4 bytes each), one WRITE per page.")
        @OptionGroup(title: "Global Options") var global: GlobalOptions
        @OptionGroup var credentials: PasswordOptions
        @OptionGroup var dialect: ReaderDialectOption
        @Option(help: "First page (decimal or 0x hex, 2...255).") var page: NTAGPageNumber
        @Option(help: "Data in hex, a whole number of pages.") var data: String

        func validate() throws {
            guard page.value >= 2 else { throw ValidationError("--page \(page.value) is outside 2...255") }
            let bytes = try NTAGCommand.hex(data, option: "--data")
            guard !bytes.isEmpty, bytes.count % 4 == 0 else {
                throw ValidationError("--data has \(bytes.count) bytes, not a whole number of 4-byte pages")
            }
        }

        func run() async throws {
            let bytes = try NTAGCommand.hex(data, option: "--data")
            let page = self.page.value
            try await withTag(global, credentials, dialect) { tag in
                for index in 0..<bytes.count / 4 {
                    try await tag.write(page: page + index, Array(bytes[index * 4..<index * 4 + 4]))
                }
            }
            if global.json { try Output.json(NTAGOutput.PagesWritten(pages: bytes.count / 4)) }
        }
    }

    struct PasswordSet: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "pwd-set",
            abstract: "Set PWD and PACK and protect the pages from AUTH0 on (writes only, or reads too).",
            discussion: """
                With --password the current password authenticates first (a protected tag needs it). PWD and \
                PACK travel in clear: an anti-overwrite lock, not security.
                """)
        @OptionGroup(title: "Global Options") var global: GlobalOptions
        @OptionGroup var credentials: PasswordOptions
        @OptionGroup var dialect: ReaderDialectOption
        @Option(help: ArgumentHelp("The new 4-byte password (hex).", valueName: "HEX")) var newPassword: String
        @Option(help: ArgumentHelp("The new 2-byte PACK (hex).", valueName: "HEX")) var newPack: String
        @Option(help: "First protected page (AUTH0; 255 turns protection off).") var auth0: Int = 4
        @Flag(help: "Protect reads too (PROT), not only writes.") var protectReads = false
        @Option(help: "AUTHLIM 0...7: 2^N failed attempts block the password for good; 0 = no limit.")
        var authLimit: Int = 0

        func validate() throws {
            _ = try NTAGCommand.hex(newPassword, count: 4, option: "--new-password")
            _ = try NTAGCommand.hex(newPack, count: 2, option: "--new-pack")
            guard (0...255).contains(auth0) else { throw ValidationError("--auth0 \(auth0) is outside 0...255") }
            guard (0...7).contains(authLimit) else {
                throw ValidationError("--auth-limit \(authLimit) is outside 0...7")
            }
        }

        func run() async throws {
            let password = try Type2Password(NTAGCommand.hex(newPassword, count: 4, option: "--new-password"))
            let pack = try NTAGCommand.hex(newPack, count: 2, option: "--new-pack")
            let configuration = try await withTag(global, credentials, dialect) { tag in
                try await tag.protect(
                    password: password, pack: pack, auth0: UInt8(auth0), protectsReads: protectReads,
                    authenticationLimit: UInt8(authLimit))
            }
            if global.json {
                try Output.json(
                    NTAGOutput.Protection(
                        auth0: configuration.auth0, authenticationLimit: configuration.authenticationLimit,
                        protectsReads: configuration.protectsReads))
            } else {
                Output.standardOutput(
                    "password set; \(configuration.protectsReads ? "reads and writes" : "writes") protected from page "
                        + "\(configuration.auth0)")
            }
        }
    }

    struct PasswordAuth: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "pwd-auth", abstract: "PWD_AUTH with --password; prints the PACK (checked with --pack).")
        @OptionGroup(title: "Global Options") var global: GlobalOptions
        @OptionGroup var credentials: PasswordOptions
        @OptionGroup var dialect: ReaderDialectOption

        func validate() throws {
            guard credentials.password != nil else { throw ValidationError("pwd-auth needs --password") }
        }

        func run() async throws {
            guard let (password, expected) = try credentials.credentials() else { return }
            let pack = try await withTag(global, dialect, login: nil) { tag in
                try await tag.authenticate(password: password, expectedPACK: expected)
            }
            if global.json {
                try Output.json(NTAGOutput.PasswordAcknowledged(pack: pack.hexString))
            } else {
                Output.standardOutput(pack.hexString)
            }
        }
    }

    struct Counter: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "counter", abstract: "READ_CNT: the NFC counter (NTAG21x) or counter 0-2 (Ultralight EV1).")
        @OptionGroup(title: "Global Options") var global: GlobalOptions
        @OptionGroup var credentials: PasswordOptions
        @OptionGroup var dialect: ReaderDialectOption
        @Option(help: "Counter number (default: 2, the NTAG21x NFC counter).") var number: Int?

        func validate() throws {
            if let number, !(0...2).contains(number) { throw ValidationError("--number \(number) is outside 0...2") }
        }

        func run() async throws {
            let value = try await withTag(global, credentials, dialect) { tag in
                try await tag.readCounter(number.map { UInt8($0) })
            }
            if global.json {
                try Output.json(NTAGOutput.Counter(counter: value))
            } else {
                Output.standardOutput("\(value)")
            }
        }
    }

    struct Signature: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "signature",
            abstract: "READ_SIG: the 32-byte originality signature (not verified: secp128r1 is not in swift-crypto).")
        @OptionGroup(title: "Global Options") var global: GlobalOptions
        @OptionGroup var dialect: ReaderDialectOption

        func run() async throws {
            let signature = try await withTag(global, dialect, login: nil) { tag in try await tag.readSignature() }
            if global.json {
                try Output.json(NTAGOutput.Signature(signature: signature.hexString))
            } else {
                Output.standardOutput(signature.hexString)
            }
        }
    }
}

/// Runs `body` on the NTAG / Ultralight EV1 of a session on the primary reader, after PWD_AUTH
/// when a password is given; ends the reader's transparent session afterwards.
private func withTag<T: Sendable>(
    _ global: GlobalOptions, _ credentials: NTAGCommand.PasswordOptions, _ dialect: ReaderDialectOption,
    _ body: @escaping @Sendable (NTAGClient) async throws -> T
) async throws -> T {
    try await withTag(global, dialect, login: try credentials.credentials(), body)
}

/// As above, with the password (and expected PACK) already parsed; nil: no PWD_AUTH.
private func withTag<T: Sendable>(
    _ global: GlobalOptions, _ dialect: ReaderDialectOption, login: (Type2Password, [UInt8]?)?,
    _ body: @escaping @Sendable (NTAGClient) async throws -> T
) async throws -> T {
    let logger = CommandLogging.logger(trace: global.trace)
    return try await ReaderConnection.withPrimarySession(global) { session in
        let tag = try await NTAGClient.open(
            on: session, variant: dialect.readerVariant(for: session.reader.info), logger: logger)
        if let (password, pack) = login {
            try await tag.authenticate(password: password, expectedPACK: pack)
        }
        let value = try await body(tag)
        try await tag.finish()
        return value
    }
}
