import ArgumentParser
import CardFlow
import CardFlowISO15693
import Foundation

/// `cardctl iso15693 info|read|write|exchange`.
struct ISO15693Command: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "iso15693",
        abstract:
            "ISO 15693 vicinity tags: identify, read and write blocks, and the read → command → write-back exchange.",
        subcommands: [Info.self, Read.self, Write.self, Exchange.self])

    struct ByteOrderOption: ParsableArguments {
        @Flag(name: .customLong("reverse-blocks"), help: "The tag stores each block's bytes reversed.")
        var reverse = false
        var byteOrder: ISO15693Tag.ByteOrder { reverse ? .reversedPerBlock : .asStored }
    }

    /// Block numbers are one byte on the air: anything else is a usage error, found before any APDU.
    static func validateBlock(_ block: Int) throws {
        guard ISO15693Tag.addressableBlocks.contains(block) else {
            throw ValidationError("--block \(block) is outside 0...255 (ISO 15693 block numbers are one byte)")
        }
    }

    struct Info: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "info", abstract: "UID, block size and block count.")
        @OptionGroup(title: "Global Options") var global: GlobalOptions

        func run() async throws {
            let info = try await withTag(global, .asStored) { tag in try await tag.systemInformation() }
            if global.json {
                try Output.json(
                    ISO15693Output.Info(
                        blockCount: info.blockCount, blockSize: info.blockSize, uid: info.uid.hexString))
            } else {
                Output.standardOutput("UID \(info.uid.hexString), \(info.blockCount) blocks of \(info.blockSize) bytes")
            }
        }
    }

    struct Read: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "read", abstract: "Read blocks (hex).")
        @OptionGroup(title: "Global Options") var global: GlobalOptions
        @OptionGroup var order: ByteOrderOption
        @Option(help: "First block.") var block: Int = 0
        @Option(help: "Number of blocks (default: to the end).") var count: Int?

        func validate() throws {
            try ISO15693Command.validateBlock(block)
            if let count, !(1...256).contains(count) {
                throw ValidationError("--count \(count) is outside 1...256 (ISO 15693 addresses 256 blocks)")
            }
        }

        func run() async throws {
            let data = try await withTag(global, order.byteOrder) { tag in
                let info = try await tag.systemInformation()
                guard (0..<info.blockCount).contains(block) else {
                    throw InputError(description: "--block \(block) is outside 0...\(info.blockCount - 1)")
                }
                return try await tag.readBlocks(
                    block, count: min(count ?? info.blockCount - block, info.blockCount - block),
                    blockSize: info.blockSize)
            }
            Output.standardOutput(data.hexString)
        }
    }

    struct Write: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "write", abstract: "Write whole blocks, one block per command.")
        @OptionGroup(title: "Global Options") var global: GlobalOptions
        @OptionGroup var order: ByteOrderOption
        @Option(help: "First block.") var block: Int
        @Option(help: "Data in hex, a whole number of blocks.") var data: String

        func validate() throws {
            try ISO15693Command.validateBlock(block)
        }

        func run() async throws {
            let bytes = try [UInt8](hex: data)
            try await withTag(global, order.byteOrder) { tag in try await tag.writeBlocks(block, data: bytes) }
        }
    }

    struct Exchange: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "exchange",
            abstract:
                "Read the tag, pipe its hex through a command, write the command's hex answer back to the same tag, verify."
        )
        @OptionGroup(title: "Global Options") var global: GlobalOptions
        @OptionGroup var order: ByteOrderOption
        @Option(
            help: ArgumentHelp(
                "Shell command: reads the tag's hex on stdin, prints the hex to write.", valueName: "CMD"))
        var via: String

        func run() async throws {
            let logger = CommandLogging.logger(trace: global.trace)
            let connection = try await ReaderConnection.open(global, logger: logger)
            let reader = try connection.primary
            let command = via
            let flow = ISO15693Exchange.flow(byteOrder: order.byteOrder) { data in
                try await Self.pipe(data, through: command)
            }
            let run = reader.run(flow, policy: global.policy(for: reader))
            let progress = Task { [json = global.json, trace = global.trace] in
                await FlowProgressView.show(run.progress, trace: trace, json: json)
            }
            var failure: (any Error)?
            var result: ISO15693Exchange.Result?
            do { result = try await run.value } catch { failure = error }
            await progress.value
            try await connection.close()
            if let failure { throw (failure as? FlowError)?.underlying ?? failure }
            guard let result else { return }
            if global.json {
                try Output.json(
                    ISO15693Output.Exchanged(
                        read: result.read.hexString, uid: result.uid.hexString, written: result.written.hexString))
            } else {
                Output.standardOutput("read    \(result.read.hexString)")
                Output.standardOutput("written \(result.written.hexString)")
            }
        }

        /// Runs `/bin/sh -c command` with the hex on stdin; its stdout, as hex, is the answer.
        static func pipe(_ data: [UInt8], through command: String) async throws -> [UInt8] {
            try await withCheckedThrowingContinuation { continuation in
                let thread = Thread {
                    do {
                        let process = Process()
                        process.executableURL = URL(fileURLWithPath: "/bin/sh")
                        process.arguments = ["-c", command]
                        let input = Pipe()
                        let output = Pipe()
                        process.standardInput = input
                        process.standardOutput = output
                        try process.run()
                        input.fileHandleForWriting.write(Data((data.hexString + "\n").utf8))
                        try input.fileHandleForWriting.close()
                        let answer = output.fileHandleForReading.readDataToEndOfFile()
                        process.waitUntilExit()
                        guard process.terminationStatus == 0 else {
                            throw InputError(
                                description: "--via command exited with status \(process.terminationStatus)")
                        }
                        let text = String(decoding: answer, as: UTF8.self).trimmingCharacters(
                            in: .whitespacesAndNewlines)
                        continuation.resume(returning: try [UInt8](hex: text))
                    } catch {
                        continuation.resume(throwing: error)
                    }
                }
                thread.start()
            }
        }
    }
}

/// Runs `body` on the ISO 15693 tag of a session on the primary reader.
private func withTag<T: Sendable>(
    _ global: GlobalOptions, _ order: ISO15693Tag.ByteOrder,
    _ body: @escaping @Sendable (ISO15693Tag) async throws -> T
) async throws -> T {
    try await ReaderConnection.withPrimarySession(global) { session in
        try await body(ISO15693Tag(channel: session, byteOrder: order))
    }
}
