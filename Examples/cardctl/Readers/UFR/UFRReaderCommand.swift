import ArgumentParser
import CardFlow
import CardFlowUFR
import Foundation

/// `cardctl ufr …`: what only Digital Logic uFR readers do.
struct UFRReaderCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ufr",
        abstract: "Digital Logic uFR readers: the reader's own key slots.",
        subcommands: [UFRKeyWriteCommand.self])
}

/// `cardctl --reader ufr:… ufr key-write INDEX (--key-slot N | -)`: stores an AES key in one of
/// the reader's 16 key slots (DESFIRE_WRITE_AES_KEY). The key comes from the key store or from
/// standard input, never from the command line (where `ps` and shell history would keep it).
struct UFRKeyWriteCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "key-write",
        abstract: "Store an AES key in a uFR reader key slot (0-15) for the desfire commands' --reader-key.",
        discussion: """
            The key comes from the key store (--key-slot N, --key-store PATH) or, with -, as hex from standard input; \
            never from the command line. The reader never gives a stored key back.
            Example: cardctl --reader ufr:tcp:192.168.1.50 ufr key-write 3 --key-slot 3
            Example: printf '%s' "$KEY_HEX" | cardctl --reader ufr:tcp:192.168.1.50 ufr key-write 3 -
            """)

    @OptionGroup(title: "Global Options") var global: GlobalOptions

    @Argument(help: ArgumentHelp("The reader's key slot, 0-15.", valueName: "INDEX"))
    var index: Int

    @Argument(help: ArgumentHelp("- to read the key in hex from standard input.", valueName: "-"))
    var input: String?

    @Option(name: .customLong("key-slot"), help: ArgumentHelp("Take the key from this key store slot.", valueName: "N"))
    var keySlot: Int?

    @Option(name: .customLong("key-store"), help: ArgumentHelp("Key store file for --key-slot.", valueName: "PATH"))
    var keyStore: String?

    func run() async throws {
        let key = try await readKey()
        try await withUFRDESFire(global) { desfire in try await desfire.writeReaderKey(slot: index, key: key) }
        if global.json {
            try Output.json(["readerKeySlot": index])
        } else {
            Output.standardOutput("AES key written into reader key slot \(index)")
        }
    }

    private func readKey() async throws -> [UInt8] {
        let bytes: [UInt8]
        switch (keySlot, input) {
        case (let slot?, nil):
            let store = try keyStore.map { FileKeyStore(path: $0) } ?? FileKeyStore()
            guard let stored = try await store.key(in: try KeySlot(slot)) else {
                throw InputError(description: "key store slot \(slot) is empty")
            }
            guard stored.algorithm == .aes128 else {
                throw InputError(
                    description: "key store slot \(slot) holds a \(stored.algorithm) key; reader slots hold AES")
            }
            bytes = stored.bytes
        case (nil, "-"):
            bytes = try KeyCommand.bytes("-")
        case (nil, _?):
            throw InputError(
                description: "the key is never taken from the command line: give - and pipe it in, or --key-slot")
        case (_?, _?), (nil, nil):
            throw InputError(description: "give the key with exactly one of --key-slot N or - (standard input)")
        }
        guard bytes.count == 16 else { throw InputError(description: "an AES key has 16 bytes, not \(bytes.count)") }
        return bytes
    }
}

/// Runs `body` with the DESFire commands of the primary reader, which must be a uFR reader.
func withUFRDESFire<T: Sendable>(
    _ global: GlobalOptions, _ body: @escaping @Sendable (UFRDESFire) async throws -> T
) async throws -> T {
    try await ReaderConnection.withPrimaryReader(global) { reader in
        guard let driver = reader.driver as? UFRReaderDriver else {
            throw InputError(
                description: "reader keys live in uFR readers: \(reader.info.id) is not one (give --reader ufr:…)")
        }
        return try await body(UFRDESFire(device: driver.device))
    }
}
