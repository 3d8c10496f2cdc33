import ArgumentParser
import CardFlow
import CardFlowNDEF
import CardFlowStorageCards
import Foundation

/// `cardctl ndef …`: decode and encode NDEF messages (no card involved).
struct NDEFCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ndef",
        abstract: "Decode and encode NFC Forum NDEF messages.",
        discussion: """
            decode/encode work on bytes given in hex; read/write use the tag on the reader (NFC Forum Type 4 or \
            Type 2, detected). Exit code 2 for bad hex or bytes that are not a valid NDEF message.
            """,
        subcommands: [Decode.self, Encode.self, Read.self, Write.self]
    )

    /// `cardctl ndef decode HEX [--json] [--lenient]`.
    struct Decode: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "decode", abstract: "Decode an NDEF message and print its records.")

        @OptionGroup var output: JSONOption

        @Flag(
            name: .long,
            help: "Accept what real tags contain when unambiguous (missing MB/ME flags, trailing bytes, …).")
        var lenient = false

        @Argument(help: ArgumentHelp("The message in hex, or - for stdin.", valueName: "HEX"))
        var hex: String

        func run() async throws {
            let bytes = try NDEFCommand.bytes(hex)
            let mode: NDEFDecodingMode = lenient ? .lenient : .strict
            let message = try NDEFMessage(decoding: bytes, mode: mode)
            if output.json {
                try Output.sortedJSON(message.records.map { NDEFOutput.Record($0, mode: mode) })
                return
            }
            for (index, record) in message.records.enumerated() {
                for line in NDEFCommand.describe(record, index: index, mode: mode) { Output.standardOutput(line) }
            }
        }
    }

    /// `cardctl ndef encode --uri URL | --text TEXT [--lang en] | --mime TYPE --data HEX | --external TYPE --data HEX`.
    struct Encode: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "encode", abstract: "Encode a one-record NDEF message and print it in hex.")

        @OptionGroup var output: JSONOption

        @OptionGroup var record: RecordOptions

        func run() async throws {
            Output.standardOutput(try NDEFMessage([try record.record()]).encoded().hexString)
        }
    }

    /// The one record `ndef encode` and `ndef write` build from their options.
    struct RecordOptions: ParsableArguments {
        @Option(
            name: .long, help: ArgumentHelp("A URI record (the longest URI prefix is abbreviated).", valueName: "URL"))
        var uri: String?

        @Option(name: .long, help: ArgumentHelp("A Text record (UTF-8).", valueName: "TEXT"))
        var text: String?

        @Option(name: .long, help: ArgumentHelp("Language code of --text (default en).", valueName: "CODE"))
        var lang: String?

        @Option(name: .long, help: ArgumentHelp("A media-type record of this type, with --data.", valueName: "TYPE"))
        var mime: String?

        @Option(
            name: .long, help: ArgumentHelp("An external type record (domain:type), with --data.", valueName: "TYPE"))
        var external: String?

        @Option(name: .long, help: ArgumentHelp("Payload of --mime or --external, in hex.", valueName: "HEX"))
        var data: String?

        func validate() throws {
            // None is checked by record() (ndef write may take --message instead).
            guard [uri, text, mime, external].compactMap({ $0 }).count <= 1 else {
                throw ValidationError("give exactly one of --uri, --text, --mime or --external")
            }
            if lang != nil, text == nil { throw ValidationError("--lang goes with --text") }
            if mime != nil || external != nil {
                guard data != nil else { throw ValidationError("--mime and --external need --data HEX") }
            } else if data != nil {
                throw ValidationError("--data goes with --mime or --external")
            }
        }

        func record() throws -> NDEFRecord {
            let record: NDEFRecord
            if let uri {
                record = URIRecord(uri).record
            } else if let text {
                record = try TextRecord(text, language: lang ?? "en").record
            } else if let mime {
                record = try MIMERecord(mediaType: mime, data: try payload()).record
            } else if let external {
                record = try ExternalTypeRecord(type: external, data: try payload()).record
            } else {
                throw ValidationError("give exactly one of --uri, --text, --mime or --external")
            }
            return record
        }

        private func payload() throws -> [UInt8] {
            guard let data else { return [] }
            // An empty payload is fine here, unlike for APDUs.
            if data.allSatisfy(\.isWhitespace) { return [] }
            return try [UInt8](hex: data)
        }
    }

    /// Human-readable lines for one record.
    static func describe(_ record: NDEFRecord, index: Int, mode: NDEFDecodingMode, indent: String = "") -> [String] {
        var lines = ["\(indent)record \(index): \(record)"]
        let detail = indent + "  "
        if let uri = try? URIRecord(record, mode: mode) {
            lines.append("\(detail)uri \(uri.uri)")
        } else if let text = try? TextRecord(record, mode: mode) {
            lines.append(
                "\(detail)text \(quoted(text.text)) language \(text.language) \(text.encoding == .utf8 ? "UTF-8" : "UTF-16")"
            )
        } else if let poster = try? SmartPosterRecord(record, mode: mode) {
            lines.append("\(detail)smart poster")
            if let action = poster.action { lines.append("\(detail)  action \(action)") }
            if let size = poster.size { lines.append("\(detail)  size \(size)") }
            if let mediaType = poster.mediaType { lines.append("\(detail)  type \(mediaType)") }
            for (nestedIndex, nested) in poster.nestedRecords.enumerated() {
                lines += describe(nested, index: nestedIndex, mode: mode, indent: detail + "  ")
            }
        } else if let aar = try? AndroidApplicationRecord(record, mode: mode) {
            lines.append("\(detail)android application \(aar.packageName)")
        } else if let mime = try? MIMERecord(record, mode: mode), mime.mediaType.hasPrefix("text/"),
            let content = String(validating: mime.data, as: UTF8.self)
        {
            lines.append("\(detail)\(mime.mediaType) \(quoted(content))")
        } else if ["T", "U", "Sp"].contains(where: record.isWellKnown) {
            let problem: String
            do {
                switch record.typeString {
                case "T": _ = try TextRecord(record, mode: mode)
                case "U": _ = try URIRecord(record, mode: mode)
                default: _ = try SmartPosterRecord(record, mode: mode)
                }
                problem = "unreadable"
            } catch {
                problem = "\(error)"
            }
            lines.append("\(detail)malformed \(record.typeString) payload: \(problem)")
        }
        return lines
    }

    static func quoted(_ text: String) -> String {
        "\""
            + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
            .replacingOccurrences(of: "\n", with: "\\n") + "\""
    }

    /// The bytes of a HEX argument; `-` reads the hex text from standard input.
    static func bytes(_ argument: String) throws -> [UInt8] {
        guard argument == "-" else { return try [UInt8](hex: argument) }
        let input = FileHandle.standardInput.readDataToEndOfFile()
        return try [UInt8](hex: String(decoding: input, as: UTF8.self))
    }
}

extension NDEFCommand {
    /// `cardctl ndef read [--json]`: the NDEF message on the tag (Type 4 or Type 2).
    struct Read: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "read", abstract: "Read the NDEF message from the tag on the reader.")
        @OptionGroup(title: "Global Options") var global: GlobalOptions
        @Flag(name: .long, help: "Accept what real tags contain when unambiguous.") var lenient = false
        @OptionGroup var dialect: ReaderDialectOption

        func run() async throws {
            let bytes = try await withNDEFTag(global, dialect) { tag in try await tag.readMessageBytes() }
            try NDEFCommand.printTagMessage(
                bytes, mode: lenient ? .lenient : .strict, json: global.json, prettyJSON: true)
        }
    }

    /// Prints the message a tag holds: its records, or for an empty NDEF message (NLEN 0, an
    /// empty NDEF TLV `03 00`, a factory tag's state) no records (`[]` in JSON) and a line
    /// saying so. Bytes that are not a message still fail (exit 2).
    static func printTagMessage(_ bytes: [UInt8], mode: NDEFDecodingMode, json: Bool, prettyJSON: Bool = false)
        throws
    {
        guard !bytes.isEmpty else {
            if json {
                try Output.sortedJSON([NDEFOutput.Record](), compact: !prettyJSON)
            } else {
                Output.standardOutput("empty NDEF message (no records)")
            }
            return
        }
        try printRecords(
            of: try NDEFMessage(decoding: bytes, mode: mode), mode: mode, json: json, prettyJSON: prettyJSON)
    }

    /// Prints `message`'s records: a JSON list of record summaries, or a few lines per record.
    static func printRecords(of message: NDEFMessage, mode: NDEFDecodingMode, json: Bool, prettyJSON: Bool = false)
        throws
    {
        if json {
            try Output.sortedJSON(message.records.map { NDEFOutput.Record($0, mode: mode) }, compact: !prettyJSON)
        } else {
            for (index, record) in message.records.enumerated() {
                for line in describe(record, index: index, mode: mode) { Output.standardOutput(line) }
            }
        }
    }

    /// `cardctl ndef write --uri URL | --text TEXT | --mime TYPE --data HEX | --external TYPE --data HEX | --message HEX`.
    struct Write: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "write", abstract: "Write an NDEF message to the tag on the reader.")
        @OptionGroup(title: "Global Options") var global: GlobalOptions
        @Option(
            name: .long,
            help: ArgumentHelp("A whole NDEF message in hex (instead of the record options).", valueName: "HEX"))
        var message: String?
        @OptionGroup var record: RecordOptions
        @OptionGroup var dialect: ReaderDialectOption

        func run() async throws {
            let bytes: [UInt8]
            if let message {
                guard [record.uri, record.text, record.mime, record.external].allSatisfy({ $0 == nil }) else {
                    throw ValidationError("give either --message or one record option")
                }
                bytes = try [UInt8](hex: message)
                _ = try NDEFMessage(decoding: bytes, mode: .strict) // refuse to write garbage
            } else {
                bytes = try NDEFMessage([try record.record()]).encoded()
            }
            try await withNDEFTag(global, dialect) { tag in try await tag.writeMessageBytes(bytes) }
        }
    }
}

/// Runs `body` on the NDEF tag (type detected: Type 2, 3, 4 or 5) of a session on the primary reader.
private func withNDEFTag<T: Sendable>(
    _ global: GlobalOptions, _ dialect: ReaderDialectOption,
    _ body: @escaping @Sendable (StorageNDEFTag) async throws -> T
) async throws -> T {
    let logger = CommandLogging.logger(trace: global.trace)
    return try await ReaderConnection.withPrimarySession(global) { session in
        let variant = dialect.readerVariant(for: session.reader.info)
        return try await body(try await StorageNDEFTag.detect(on: session, variant: variant, logger: logger))
    }
}
